CREATE TABLE "quarantine_sightings" (
	"quarantine_id" bigint NOT NULL,
	"sync_run_id" bigint NOT NULL,
	CONSTRAINT "quarantine_sightings_sync_run_id_quarantine_id_pk" PRIMARY KEY("sync_run_id","quarantine_id")
);
--> statement-breakpoint
ALTER TABLE "sync_runs" ADD COLUMN "sightings_kept" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "sync_runs" ADD COLUMN "rebound" boolean DEFAULT false NOT NULL;