CREATE TABLE "check_run_card_sums" (
	"check_run_id" bigint NOT NULL,
	"chunk" bigint NOT NULL,
	"cards" bigint NOT NULL,
	"sums_base64" text COLLATE "C" NOT NULL,
	CONSTRAINT "check_run_card_sums_check_run_id_chunk_pk" PRIMARY KEY("check_run_id","chunk")
);
