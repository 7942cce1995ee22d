-- Audit entries are append-only at the database level (docs/API.md §Audit log): no code path, not even a bug,
-- can rewrite or remove history.
CREATE TRIGGER `audit_logs_no_update` BEFORE UPDATE ON `audit_logs`
BEGIN
  SELECT RAISE(ABORT, 'audit_logs is append-only');
END;
--> statement-breakpoint
CREATE TRIGGER `audit_logs_no_delete` BEFORE DELETE ON `audit_logs`
BEGIN
  SELECT RAISE(ABORT, 'audit_logs is append-only');
END;
