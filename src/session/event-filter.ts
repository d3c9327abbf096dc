import { boundaryOf, isSynthetic, type SessionEvent } from './session'

interface FilterFields {
  /** Only the active view (events compaction covered, and boundaries, left out). */
  excludeArchived: boolean
  excludeSynthetic: boolean
  /** The branch of the agent reading: it sees root events, its own and its ancestors'. */
  branch: string | undefined
  /** Lower-cased; an event matches when its text contains it. */
  keyword: string | undefined
  lastN: number | undefined
}

/** Which events of a session to read (Spring AI's `EventFilter`). Filters combine with `merge`. */
export class EventFilter {
  readonly excludeArchived: boolean
  readonly excludeSynthetic: boolean
  readonly branch: string | undefined
  readonly keyword: string | undefined
  readonly lastN: number | undefined

  private constructor(fields: FilterFields) {
    this.excludeArchived = fields.excludeArchived
    this.excludeSynthetic = fields.excludeSynthetic
    this.branch = fields.branch
    this.keyword = fields.keyword
    this.lastN = fields.lastN
  }

  /** Every event of the log, those compaction covered and its boundaries included. */
  static all(): EventFilter {
    return new EventFilter(NONE)
  }

  /** The active view: what the model is given. */
  static active(): EventFilter {
    return new EventFilter({ ...NONE, excludeArchived: true })
  }

  /** Events an agent at `name` sees: root events, its own and its ancestors' (`a` is an ancestor of `a.b`). */
  static branch(name: string): EventFilter {
    if (typeof name !== 'string' || name === '')
      throw new TypeError(`EventFilter.branch needs a branch name, got ${JSON.stringify(name)}`)
    return new EventFilter({ ...NONE, branch: name })
  }

  /** Events whose text contains `text`, ignoring case. */
  static keyword(text: string): EventFilter {
    const keyword = typeof text === 'string' ? text.trim().toLowerCase() : ''
    if (keyword === '') throw new TypeError(`EventFilter.keyword needs a word to look for, got ${JSON.stringify(text)}`)
    return new EventFilter({ ...NONE, keyword })
  }

  /** The newest `n` events that pass the other criteria. */
  static lastN(n: number): EventFilter {
    if (!Number.isSafeInteger(n) || n <= 0) throw new RangeError(`EventFilter.lastN needs a count above 0, got ${n}`)
    return new EventFilter({ ...NONE, lastN: n })
  }

  /** Leaves out what the library wrote (summaries, boundaries). */
  static realOnly(): EventFilter {
    return new EventFilter({ ...NONE, excludeSynthetic: true })
  }

  /** This filter with `other`'s criteria added (where both set one, `other`'s wins). */
  merge(other: EventFilter): EventFilter {
    return new EventFilter({
      excludeArchived: this.excludeArchived || other.excludeArchived,
      excludeSynthetic: this.excludeSynthetic || other.excludeSynthetic,
      branch: other.branch ?? this.branch,
      keyword: other.keyword ?? this.keyword,
      lastN: other.lastN ?? this.lastN,
    })
  }

  /** Whether one event passes the per-event criteria (the view and `lastN` are the repository's). */
  matches(event: SessionEvent): boolean {
    if (this.excludeSynthetic && (isSynthetic(event) || boundaryOf(event))) return false
    if (this.branch !== undefined && event.branch !== undefined) {
      if (event.branch !== this.branch && !this.branch.startsWith(`${event.branch}.`)) return false
    }
    if (this.keyword !== undefined && !textOf(event).toLowerCase().includes(this.keyword)) return false
    return true
  }

  /** The events (already limited to the view when asked) that pass, oldest first. */
  apply(events: readonly SessionEvent[]): SessionEvent[] {
    const passing = events.filter((event) => this.matches(event))
    return this.lastN === undefined ? passing : passing.slice(-this.lastN)
  }
}

const NONE: FilterFields = {
  excludeArchived: false,
  excludeSynthetic: false,
  branch: undefined,
  keyword: undefined,
  lastN: undefined,
}

/** The words of an event, tool calls and results included, for a keyword search. */
export function textOf(event: SessionEvent): string {
  const message = event.message
  switch (message.role) {
    case 'assistant':
      return [message.text, ...message.toolCalls.map((call) => `${call.name}(${call.arguments})`)].join(' ')
    case 'tool':
      return message.responses.map((response) => `${response.name}: ${response.responseData}`).join(' ')
    default:
      return message.text
  }
}
