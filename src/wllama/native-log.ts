import type { WllamaLogger } from '@wllama/wllama'
import type { WllamaEngine } from './engine'

/**
 * llama.cpp reports many failures only in its log (the call itself then fails with a meaningless
 * RangeError): the recent warning and error lines are kept so that errors can quote them.
 */
export class NativeLog {
  #lines: string[] = []
  #count = 0
  readonly logger: WllamaLogger = {
    debug: () => {},
    log: () => {},
    warn: (...parts: unknown[]) => this.#keep(parts),
    error: (...parts: unknown[]) => this.#keep(parts),
  }

  #keep(parts: unknown[]) {
    this.#lines.push(parts.map(String).join(' ').trim())
    this.#count++
    if (this.#lines.length > 20) this.#lines.shift()
  }

  /** A position to read errors from, e.g. before a request. */
  mark(): number {
    return this.#count
  }

  /** The first error line written since `mark`: the cause (what follows is its fallout). */
  firstError(since = 0): string | undefined {
    const fresh = this.#lines.slice(Math.max(0, this.#lines.length - (this.#count - since)))
    return fresh.find((line) => /error|invalid|failed|unable|cannot|unrecognized|unsupported|unexpected/i.test(line))
  }
}

const logs = new WeakMap<WllamaEngine, NativeLog>()

export function attachLog(engine: WllamaEngine, log: NativeLog): void {
  logs.set(engine, log)
}

/** The log of an engine this entry loaded; none for an engine the app made itself. */
export function logOf(engine: WllamaEngine): NativeLog | undefined {
  return logs.get(engine)
}
