/**
 * Hostile input for the routes of src/modules/health: query strings and path parameters (it has no
 * POST or PUT route with a JSON body). What must hold: tests/support/bad-input.ts.
 */
import { badInputTests } from '../support/bad-input'

badInputTests('health')
