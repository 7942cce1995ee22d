/**
 * Notifications: one function every feature calls to tell users something (assigned a visit, sent
 * to the field, a submission reviewed). Rows are written in the caller's transaction, so a rolled
 * back action notifies nobody. Reading them (lists, unread count, read marks) and delivery (push,
 * WebSocket) build on this table.
 */
import type { Db } from '../../db/client'
import { notifications } from '../../db/schema'
import type { RequestContext } from '../../platform/context'

export interface Notice {
  userIds: number[]
  workspaceId: number
  type: 'visit.assigned' | 'visit.sent_to_field' | 'submission.approved' | 'submission.rejected'
  title: string
  body: string
  data: Record<string, unknown>
}

export async function notify(tx: Db, ctx: RequestContext, notice: Notice): Promise<void> {
  const userIds = [...new Set(notice.userIds)]
  if (userIds.length === 0) return
  const now = ctx.deps.clock.now().toISOString()
  await tx.insert(notifications).values(
    userIds.map((userId) => ({
      workspace_id: notice.workspaceId,
      user_id: userId,
      type: notice.type,
      title: notice.title,
      body: notice.body,
      data: notice.data,
      created_at: now,
    })),
  )
}
