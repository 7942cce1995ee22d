-- Missed visits (docs/API.md §Missed visits): when the missed-visit job told the visit's team leaders and
-- the workspace's admins that the visit was still scheduled after its local day. Set in the same
-- transaction as those notifications, so every visit is reported once, whatever the number of runs.
-- The job finds the scheduled visits of the last few local days through visits_workspace_status_date_live.
ALTER TABLE `visits` ADD `missed_notified_at` text;
