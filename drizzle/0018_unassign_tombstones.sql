-- A field user taken off a visit is told to drop every submission their phone may hold: the live ones, and
-- the deleted ones (soft or hard) whose tombstones are still in the change log (docs/API.md §Sync and change
-- feed). A tombstone gone by retention (30 days) needs no copy: every cursor from before it is refused.
-- Both parts are index searches (submissions_visit_live, and the partial index below), never a scan.
-- Before this, only live submissions were tombstoned, and a submission deleted while the user was still
-- assigned but after their last sync stayed on the phone for good: its own tombstone (visit_id set,
-- user_id NULL) is shown only to the visit's current assignees.
DROP TRIGGER `visit_assignees_changes_delete`;
--> statement-breakpoint
CREATE INDEX `changes_submission_tombstones` ON `changes` (`visit_id`) WHERE entity = 'submission' AND op = 'delete' AND user_id IS NULL;
--> statement-breakpoint
CREATE TRIGGER `visit_assignees_changes_delete` AFTER DELETE ON `visit_assignees`
BEGIN
  DELETE FROM changes WHERE workspace_id = OLD.workspace_id AND entity = 'visit' AND entity_id = OLD.visit_id AND user_id IS NULL;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (OLD.workspace_id, 'visit', OLD.visit_id, coalesce((SELECT CASE WHEN visits.deleted_at IS NULL THEN 'upsert' ELSE 'delete' END FROM visits WHERE visits.id = OLD.visit_id), 'delete'), NULL, OLD.visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
  DELETE FROM changes WHERE visit_id = OLD.visit_id AND user_id = OLD.user_id;
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at) VALUES (OLD.workspace_id, 'visit', OLD.visit_id, 'delete', OLD.user_id, OLD.visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
  INSERT INTO changes (workspace_id, entity, entity_id, op, user_id, visit_id, created_at)
    SELECT OLD.workspace_id, 'submission', id, 'delete', OLD.user_id, OLD.visit_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
    FROM (
      SELECT id FROM submissions WHERE visit_id = OLD.visit_id AND deleted_at IS NULL
      UNION
      SELECT entity_id FROM changes WHERE visit_id = OLD.visit_id AND entity = 'submission' AND op = 'delete' AND user_id IS NULL
    )
    ORDER BY id;
END;
