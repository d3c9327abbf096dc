import type { ChatModel } from '../core'
import { ScriptedChatModel, type ScriptedReply } from '../models'
import { ReplayChatModel, type ReplayOptions } from './replay-model'
import type { Cassette, ForkRunRequest, TraceEvent, TraceSink } from '../trace'

/** A model the Playwright helpers can install: plain data, so it crosses from the test into the page. */
export type InstallableModel =
  | { kind: 'scripted'; replies: Array<string | (Omit<ScriptedReply, 'error'> & { error?: string })> }
  | { kind: 'replay'; cassette: Cassette; options?: ReplayOptions }

/** What the page exposes to the helpers, as `window.__advisorChain`. */
export interface HarnessHandle {
  events: TraceEvent[]
  /** Runs already handed to a test by `waitForRun`. */
  seen: string[]
  installModel(model: InstallableModel): void
  /** Re-runs a round of a recorded run (from `events`) in the app; resolves to the new run's id. */
  fork(request: Omit<ForkRunRequest, 'trace'>): Promise<string>
  clear(): void
}

declare global {
  interface Window {
    __advisorChain?: HarnessHandle
  }
}

/**
 * Lets end-to-end tests drive an app: they can install a scripted or replayed model and read the
 * trace of every run (give `sink` to the app's ObserverAdvisor, e.g. with `fanOut`). Enable it in
 * test and demo builds; it adds a `window.__advisorChain` handle and nothing else.
 */
export function connectTestHarness(options: {
  onModel: (model: ChatModel, label: string) => void
  /** How the app forks a run (usually `forkRun` with its current client); without it tests cannot fork. */
  onFork?: (request: ForkRunRequest) => Promise<{ runId: string }>
}): {
  sink: TraceSink
} {
  const handle: HarnessHandle = {
    events: [],
    seen: [],
    installModel(model) {
      if (model.kind === 'scripted') {
        const replies = model.replies.map((reply) =>
          typeof reply === 'string' || reply.error === undefined ? reply : { ...reply, error: new Error(reply.error) },
        )
        options.onModel(new ScriptedChatModel(replies, { model: 'installed-by-test' }), 'Scripted by a test')
      } else {
        options.onModel(new ReplayChatModel(model.cassette, model.options), 'Replaying a cassette')
      }
    },
    async fork(request) {
      if (!options.onFork) throw new Error('This app does not fork runs: pass onFork to connectTestHarness()')
      return (await options.onFork({ ...request, trace: handle.events })).runId
    },
    clear() {
      handle.events.length = 0
      handle.seen.length = 0
    },
  }
  window.__advisorChain = handle
  return { sink: { emit: (event) => void handle.events.push(event) } }
}
