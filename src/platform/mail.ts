/**
 * Outgoing mail through an outbox. A message is written to the `outbox` table in the transaction
 * that decides to send it (so a rolled-back request sends nothing); after commit, `flush()` hands
 * unsent rows to SMTP (nodemailer) when SMTP_URL is set. Without SMTP the outbox is the mailbox and
 * each message is also logged, which is what a self-hosted instance without mail needs.
 */
import { asc, eq, isNull, and } from 'drizzle-orm'
import type { Transporter } from 'nodemailer'
import type { Database, Db } from '../db/client'
import { outbox } from '../db/schema'
import type { Clock } from '../lib/clock'
import { errorFields, type Logger } from './logger'

export interface MailMessage {
  to: string
  subject: string
  body: string
}

export interface Mailer {
  /** Queues a message inside the caller's transaction. */
  queue(tx: Db, message: MailMessage): Promise<void>
  /** Delivers queued messages (after commit). Never throws. */
  flush(): Promise<void>
}

export function createMailer(options: { db: Database; clock: Clock; logger: Logger; smtpUrl?: string; from: string }): Mailer {
  const { db, clock, logger } = options
  // Imported only when SMTP_URL is set: nodemailer's code is ~15 MiB of resident memory a server that
  // only queues mail never needs (docs/PERFORMANCE.md "Memory budget").
  const smtpUrl = options.smtpUrl
  const transport: Promise<Transporter> | null = smtpUrl ? import('nodemailer').then(({ createTransport }) => createTransport(smtpUrl)) : null
  let flushing: Promise<void> | null = null

  async function deliverAll() {
    const pending = await db.read
      .select()
      .from(outbox)
      .where(and(isNull(outbox.sent_at), isNull(outbox.error)))
      .orderBy(asc(outbox.id))
      .limit(100)
    for (const message of pending) {
      let error: string | null = null
      try {
        await (await transport!).sendMail({ from: options.from, to: message.to_address, subject: message.subject, text: message.body })
      } catch (failure) {
        error = failure instanceof Error ? failure.message : String(failure)
        logger.error('mail delivery failed', { outbox_id: message.id, ...errorFields(failure) })
      }
      await db.transaction(async (tx) => {
        await tx
          .update(outbox)
          .set(error ? { error } : { sent_at: clock.now().toISOString() })
          .where(eq(outbox.id, message.id))
      })
    }
  }

  return {
    async queue(tx, message) {
      await tx.insert(outbox).values({
        to_address: message.to,
        subject: message.subject,
        body: message.body,
        created_at: clock.now().toISOString(),
      })
      if (!transport) logger.info('mail queued in outbox (SMTP_URL not set)', { to: message.to, subject: message.subject })
    },
    async flush() {
      if (!transport) return
      // One delivery loop at a time; a flush during a flush waits for it and then runs again.
      while (flushing) await flushing
      flushing = deliverAll()
        .catch((error) => logger.error('mail flush failed', errorFields(error)))
        .finally(() => {
          flushing = null
        })
      await flushing
    },
  }
}
