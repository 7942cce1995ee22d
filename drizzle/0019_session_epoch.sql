-- A session ends when its refresh tokens are revoked (logout, a password change or reset, a deactivation,
-- a detected reuse): access tokens carry the session (`sid`), and an access check reads whether it still
-- has a live refresh token. That check is cached under the auth epoch like the caller's membership
-- (src/platform/actor.ts), so a revocation bumps the epoch, whichever process writes it; the socket hub's
-- sweep sees the bump and closes that session's sockets (src/platform/hub.ts).
CREATE TRIGGER `refresh_tokens_auth_epoch_revoke` AFTER UPDATE OF `revoked_at` ON `refresh_tokens`
WHEN NEW.`revoked_at` IS NOT NULL AND OLD.`revoked_at` IS NULL
BEGIN
  UPDATE `auth_epoch` SET `value` = `value` + 1 WHERE `id` = 1;
END;
