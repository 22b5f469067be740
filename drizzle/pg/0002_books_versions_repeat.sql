DROP INDEX "books_files_version";--> statement-breakpoint
CREATE INDEX "books_files_version" ON "books_files" USING btree ("kind","source","sha256");