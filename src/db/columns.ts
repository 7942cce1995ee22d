/**
 * Column helpers shared by every table. Timestamps are ISO 8601 UTC strings with milliseconds
 * (`2026-11-21T08:15:00.000Z`): they sort correctly as text, compare with date filters directly and
 * leave the database exactly as the API shows them. The service sets them from its injectable clock,
 * never from a SQL default, so tests control time.
 */
import { integer, text } from 'drizzle-orm/sqlite-core'

export const id = () => integer('id').primaryKey({ autoIncrement: true })

export const timestamp = (name: string) => text(name)

export const createdAt = () => text('created_at').notNull()
export const updatedAt = () => text('updated_at').notNull()
export const deletedAt = () => text('deleted_at')

export const bool = (name: string) => integer(name, { mode: 'boolean' })

export const json = <T>(name: string) => text(name, { mode: 'json' }).$type<T>()
