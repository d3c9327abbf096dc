// advisor-chain/playwright: helpers for end-to-end tests of apps built on advisor-chain. The app
// calls connectTestHarness() (see the README); these drive it from Playwright, without the DOM.
import type { Page } from '@playwright/test'
import { summarizeRun, type InstallableModel, type ReplayOptions, type RunSummary } from '../replay'
import type { Cassette, ForkRunRequest, TraceEvent } from '../trace'

export type { RunSummary } from '../replay'
export { summarizeRun } from '../replay'

async function harness(page: Page): Promise<void> {
  await page
    .waitForFunction(() => window.__advisorChain !== undefined, undefined, { timeout: 10_000 })
    .catch(() => {
      throw new Error('The page has no test harness: call connectTestHarness() in the app (test and demo builds)')
    })
}

/** Makes the app use a scripted model (a test double) with these replies, in order. */
export async function installScriptedModel(
  page: Page,
  replies: Extract<InstallableModel, { kind: 'scripted' }>['replies'],
): Promise<void> {
  await harness(page)
  await page.evaluate((model) => window.__advisorChain!.installModel(model), {
    kind: 'scripted',
    replies,
  } satisfies InstallableModel)
}

/** Makes the app replay a recorded session (a cassette exported from the devtools). */
export async function installReplayedModel(page: Page, cassette: Cassette, options: ReplayOptions = {}): Promise<void> {
  await harness(page)
  await page.evaluate((model) => window.__advisorChain!.installModel(model), {
    kind: 'replay',
    cassette,
    options,
  } satisfies InstallableModel)
}

/** Every trace event recorded so far. */
export async function readTrace(page: Page): Promise<TraceEvent[]> {
  await harness(page)
  return page.evaluate(() => window.__advisorChain!.events)
}

/** Waits for the next run to end (one not returned before) and returns it, summarized. */
export async function waitForRun(page: Page, options: { timeout?: number } = {}): Promise<RunSummary> {
  await harness(page)
  const handle = await page.waitForFunction(
    () => {
      const { events, seen } = window.__advisorChain!
      const ended = events.find((event) => event.type === 'run-end' && !seen.includes(event.runId))
      if (!ended) return undefined
      seen.push(ended.runId)
      return ended.runId
    },
    undefined,
    { timeout: options.timeout ?? 15_000 },
  )
  const runId = (await handle.jsonValue()) as string
  return summarizeRun(await readTrace(page), runId)
}

/**
 * Re-runs a round of a recorded run in the app, with edits (as "Re-run from here" in the devtools
 * does), and returns the new run's id; `waitForRun` then returns the fork once it ends.
 */
export async function forkRound(page: Page, request: Omit<ForkRunRequest, 'trace'>): Promise<string> {
  await harness(page)
  return page.evaluate((fork) => window.__advisorChain!.fork(fork), request)
}

/** Forgets the recorded trace (the next waitForRun waits for a new run). */
export async function clearTrace(page: Page): Promise<void> {
  await harness(page)
  await page.evaluate(() => window.__advisorChain!.clear())
}
