/**
 * Notifications: one function every feature calls to tell users something (assigned a visit, sent
 * to the field, a submission reviewed). Rows are written in the caller's transaction, so a rolled
 * back action notifies nobody; after commit each is pushed to the user's sockets as
 * `notification.created`.
 */
import { notifications } from '../../db/schema'
import type { RequestContext } from '../../platform/context'
import type { TxScope } from '../../platform/transaction'
import { topics } from '../../ws/hub'

export interface Notice {
  userIds: number[]
  workspaceId: number
  type: 'visit.assigned' | 'visit.sent_to_field' | 'submission.approved' | 'submission.rejected'
  title: string
  body: string
  data: Record<string, unknown>
}

export async function notify(scope: TxScope, ctx: RequestContext, notice: Notice): Promise<void> {
  const userIds = [...new Set(notice.userIds)]
  if (userIds.length === 0) return
  const now = ctx.deps.clock.now().toISOString()
  const rows = await scope.tx.insert(notifications).values(
    userIds.map((userId) => ({
      workspace_id: notice.workspaceId,
      user_id: userId,
      type: notice.type,
      title: notice.title,
      body: notice.body,
      data: notice.data,
      created_at: now,
    })),
  ).returning()
  scope.afterCommit(() => {
    for (const row of rows) ctx.deps.hub.publish(topics.user(row.workspace_id, row.user_id), { type: 'notification.created', data: row })
  })
}
