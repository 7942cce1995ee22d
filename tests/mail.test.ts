/**
 * Outgoing mail (README.md "Configuration"): without SMTP_URL the outbox table is the mailbox; with it, queued
 * messages are delivered over SMTP after commit — here to a minimal SMTP server on a free port.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { TCPSocketListener } from 'bun'
import { createTestApp, type TestApp } from './harness'

interface Received {
  from: string
  to: string[]
  data: string
}

/** Just enough SMTP (RFC 5321) for one client: EHLO, MAIL, RCPT, DATA, QUIT. */
function startSmtpServer() {
  const received: Received[] = []
  const server: TCPSocketListener<{ buffer: string; current: Received; inData: boolean }> = Bun.listen({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      open(socket) {
        socket.data = { buffer: '', current: { from: '', to: [], data: '' }, inData: false }
        socket.write('220 test.local ESMTP ready\r\n')
      },
      data(socket, chunk) {
        const state = socket.data
        state.buffer += chunk.toString()
        for (let newline = state.buffer.indexOf('\r\n'); newline !== -1; newline = state.buffer.indexOf('\r\n')) {
          const line = state.buffer.slice(0, newline)
          state.buffer = state.buffer.slice(newline + 2)
          if (state.inData) {
            if (line === '.') {
              state.inData = false
              received.push(state.current)
              state.current = { from: '', to: [], data: '' }
              socket.write('250 OK queued\r\n')
            } else state.current.data += `${line.startsWith('..') ? line.slice(1) : line}\n`
            continue
          }
          const command = line.slice(0, 4).toUpperCase()
          if (command === 'EHLO' || command === 'HELO') socket.write('250-test.local\r\n250 8BITMIME\r\n')
          else if (command === 'MAIL') {
            state.current.from = line
            socket.write('250 OK\r\n')
          } else if (command === 'RCPT') {
            state.current.to.push(line)
            socket.write('250 OK\r\n')
          } else if (command === 'DATA') {
            state.inData = true
            socket.write('354 End data with <CR><LF>.<CR><LF>\r\n')
          } else if (command === 'QUIT') {
            socket.write('221 Bye\r\n')
            socket.end()
          } else socket.write('250 OK\r\n')
        }
      },
    },
  })
  return { server, received }
}

describe('mail through SMTP', () => {
  let harness: TestApp
  let smtp: ReturnType<typeof startSmtpServer>

  beforeAll(async () => {
    smtp = startSmtpServer()
    harness = await createTestApp({ env: { SMTP_URL: `smtp://127.0.0.1:${smtp.server.port}?ignoreTLS=true`, MAIL_FROM: 'Field Force <ops@example.com>' } })
  })
  afterAll(async () => {
    await harness.close()
    smtp.server.stop(true)
  })

  test('a password reset is delivered over SMTP and marked sent in the outbox', async () => {
    const ws = await harness.workspace()
    const reply = await harness.post('/auth/forgot-password', { email: ws.owner.user.email })
    expect(reply.status).toBe(200)
    expect(smtp.received).toHaveLength(1)
    const [mail] = smtp.received
    expect(mail.from).toContain('ops@example.com')
    expect(mail.to.join()).toContain(ws.owner.user.email)
    expect(mail.data).toContain('Subject: Reset your password')
    // The text part is quoted-printable: undo soft line breaks and =XX escapes.
    const text = mail.data.replace(/=\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex) => String.fromCharCode(Number.parseInt(hex, 16)))
    const token = /reset-password: (\S+)/.exec(text)![1]
    expect((await harness.post('/auth/reset-password', { token, password: 'another-password' })).status).toBe(200)
    const [row] = await harness.db.pragma('SELECT sent_at, error FROM outbox')
    expect(row.sent_at).toBeString()
    expect(row.error).toBeNull()
  })
})

describe('mail without SMTP', () => {
  test('the message stays in the outbox, unsent, and the request still succeeds', async () => {
    const harness = await createTestApp()
    try {
      const ws = await harness.workspace()
      expect((await harness.post('/auth/forgot-password', { email: ws.owner.user.email })).status).toBe(200)
      const rows = await harness.db.pragma('SELECT to_address, subject, sent_at FROM outbox')
      expect(rows).toEqual([{ to_address: ws.owner.user.email, subject: 'Reset your password', sent_at: null }])
    } finally {
      await harness.close()
    }
  })
})
