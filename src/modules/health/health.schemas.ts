import { Type } from '@sinclair/typebox'
import { Envelope } from '../../platform/http/schema'

const HealthStatus = Type.Object({ status: Type.String(), db: Type.String() })

export const HealthReply = Envelope(HealthStatus)
