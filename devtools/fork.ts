import type { ForkRunRequest } from 'advisor-chain/trace'

/**
 * How the panel re-runs a round ("Re-run from here"): the app passes a function that forks
 * through its own client, e.g. `(request) => forkRun(client, request)` with `forkRun` from
 * advisor-chain. The panel never reaches the client or the model itself.
 */
export type ForkRunner = (request: ForkRunRequest) => Promise<{ runId: string }>
