CREATE TABLE "population_leaves" (
	"gift_card_id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"stamp" text COLLATE "C" NOT NULL,
	"sync_run_id" bigint NOT NULL,
	"leaf" text COLLATE "C" NOT NULL
);
