/**
 * What the journey-plans module declares to the kernel (../../platform/manifest.ts). Its tables and
 * rules are in place (README.md beside this file); its routes and the nightly generation are not
 * mounted yet. Phones will not need these tables even then: they receive the visits a plan generates.
 */
import type { ModuleManifest } from '../../platform/manifest'

export const journeyPlansManifest = {
  notSynced: {
    journey_plans: 'a phone receives the visits a plan generates, not the plan; the office change feed is declared with the routes',
    journey_plan_stops: 'part of a plan, replaced whole with it; phones see the generated visits',
    holidays: 'read by the generation of visits on the server; phones see which visits exist',
  },
} satisfies ModuleManifest
