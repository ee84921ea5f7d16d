-- hexpost schema, migration 8: two-phase delivery into an outbox Maildir
-- (src/outbox.c, docs/ARCHITECTURE.md "Delivery"). stage is the name of the
-- message's file in the outbox's tmp/, written and fsynced before the row
-- records it; the rename into new/ comes after. On recovery the record is
-- trusted, not new/ (a mail system may have picked the file up): a staged
-- file still in tmp/ is renamed into new/, a staged file that is gone was
-- delivered. NULL: not staged.
ALTER TABLE outbox ADD COLUMN stage TEXT;
