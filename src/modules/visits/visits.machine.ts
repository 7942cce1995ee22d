/**
 * The visit state machine (docs/API.md §Visits) as one pure table:
 *
 *   scheduled ──check_in──▶ in_progress ──check_out──▶ completed
 *       │                      │  └──────force_close──▶ force_closed
 *       └────────cancel────────┴──────────────────────▶ cancelled
 *
 * A refused transition names its error: check-in of a visit already in progress is
 * VISIT_ALREADY_CHECKED_IN, check-out before check-in is VISIT_NOT_STARTED, anything else not in the
 * table is INVALID_VISIT_STATUS.
 */
import type { SubmissionStatus, VisitStatus } from '../../db/schema'

export type VisitAction = 'check_in' | 'check_out' | 'cancel' | 'force_close'

export const TRANSITIONS: Record<VisitAction, { from: readonly VisitStatus[]; to: VisitStatus }> = {
  check_in: { from: ['scheduled'], to: 'in_progress' },
  check_out: { from: ['in_progress'], to: 'completed' },
  cancel: { from: ['scheduled', 'in_progress'], to: 'cancelled' },
  force_close: { from: ['in_progress'], to: 'force_closed' },
}

export type TransitionError = 'VISIT_ALREADY_CHECKED_IN' | 'VISIT_NOT_STARTED' | 'INVALID_VISIT_STATUS'

export type TransitionResult = { ok: true; to: VisitStatus } | { ok: false; error: TransitionError }

export function transition(status: VisitStatus, action: VisitAction): TransitionResult {
  const rule = TRANSITIONS[action]
  if (rule.from.includes(status)) return { ok: true, to: rule.to }
  if (action === 'check_in' && status === 'in_progress') return { ok: false, error: 'VISIT_ALREADY_CHECKED_IN' }
  if (action === 'check_out' && status === 'scheduled') return { ok: false, error: 'VISIT_NOT_STARTED' }
  return { ok: false, error: 'INVALID_VISIT_STATUS' }
}

/** Assignees can be changed only before the visit starts. */
export const canAssign = (status: VisitStatus) => status === 'scheduled'

/** Submissions can be attached or removed until the visit is over. */
export const canChangeSubmissions = (status: VisitStatus) => status === 'scheduled' || status === 'in_progress'

export type SubmitDecision = 'allowed' | 'INVALID_VISIT_STATUS' | 'SUBMISSION_ALREADY_SUBMITTED'

/**
 * May a form be saved on this visit? New or unsent submissions only while the visit is in progress;
 * a rejected submission may be sent again while the visit is in progress or completed (docs/API.md §Visits).
 */
export function canSubmit(
  visit: VisitStatus,
  submission: { status: SubmissionStatus; approval_status: string | null } | null,
  finishing: boolean,
): SubmitDecision {
  const rejected = submission?.approval_status === 'rejected'
  if (visit === 'completed' && rejected && finishing) return 'allowed'
  if (visit !== 'in_progress') return 'INVALID_VISIT_STATUS'
  if (submission?.status === 'completed' && !rejected) return 'SUBMISSION_ALREADY_SUBMITTED'
  return 'allowed'
}
