CREATE TABLE "listed_not_found" (
	"sync_run_id" bigint NOT NULL,
	"gift_card_id" text COLLATE "C" NOT NULL,
	CONSTRAINT "listed_not_found_sync_run_id_gift_card_id_pk" PRIMARY KEY("sync_run_id","gift_card_id")
);
