-- Missed visits (docs/API.md §Missed visits): when the missed-visit job told the visit's team leaders and
-- the workspace's admins that the visit was still scheduled after its local day. Set in the same
-- transaction as those notifications, so every visit is reported once, whatever the number of runs.
ALTER TABLE `visits` ADD `missed_notified_at` text;--> statement-breakpoint
-- What the job looks for on every run: the workspace's scheduled visits up to yesterday not reported yet.
CREATE INDEX `visits_workspace_missed_pending` ON `visits` (`workspace_id`,`visit_date`) WHERE `status` = 'scheduled' and `missed_notified_at` is null and `deleted_at` is null;
