import { isMessage, newId, type Message } from '../core'
import { whyNotPlainData } from './plain-data'
import { withBlobAttachments } from './stored-attachments'
import { WindowCut } from './window-cut'

// A conversation in IndexedDB (layout 3) is a log: one record per message, keyed
// [conversationId, seq], and a conversation record saying where its window starts. A turn appends
// and, when the window is full, moves the start and deletes what falls out of it, so a step reads
// and writes about one window of records whatever the conversation's length. Conversations saved
// by layout 2 (seq 0..n-1, no start) are read as they are and take layout 3 on their next change.

export const MESSAGES = 'messages'
export const CONVERSATIONS = 'conversations'

export interface MessageRecord {
  conversationId: string
  seq: number
  message: unknown
}

/** What `conversations()` tells of a conversation. */
export interface ConversationInfo {
  id: string
  /** The first user message, shortened. */
  title: string
  createdAt: number
  updatedAt: number
  /** Messages in its window when it was last saved. */
  messageCount: number
}

/** Where a conversation's messages are in its log. */
export interface LogState {
  /** The oldest seq kept (older records are gone). */
  start: number
  /** The seq the next message gets. */
  next: number
  /** The seqs of the current system messages (a new one replaces them; they stay in every window). */
  system: number[]
  /** Valid messages from `start` on that are not system messages. */
  count: number
  /**
   * Whether the system messages come first (as a window that was cut puts them) rather than where
   * they were added: the order `windowOf` keeps.
   */
  systemFirst: boolean
}

type ConversationRecord = ConversationInfo &
  Partial<LogState> & {
    /** Changes with every change that is not an append: a reader's cached window is good while it stays. */
    revision?: string
  }

export interface LogStores {
  messages: IDBObjectStore
  conversations: IDBObjectStore
}

/** Told of a record that is skipped: its seq and why. */
export type CorruptReport = (seq: number, reason: string) => void

/** A stored message and its seq. */
export interface Entry {
  seq: number
  message: Message
}

/** A request's result, inside its transaction (continuations run before the transaction may commit). */
export function resultOf<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result)
    request.onerror = () => reject(request.error ?? new DOMException('request failed', 'UnknownError'))
  })
}

/** Records [from, to) of a conversation. */
export function range(conversationId: string, from = 0, to = Number.MAX_SAFE_INTEGER): IDBKeyRange {
  return IDBKeyRange.bound([conversationId, from], [conversationId, to], false, true)
}

/** The records [from, to) of a conversation, oldest first. */
export async function recordsIn(
  stores: LogStores,
  conversationId: string,
  from: number,
  to: number,
): Promise<MessageRecord[]> {
  if (from >= to) return []
  return (await resultOf(stores.messages.getAll(range(conversationId, from, to)))) as MessageRecord[]
}

function deleteIn(stores: LogStores, conversationId: string, from: number, to: number): void {
  if (from < to) stores.messages.delete(range(conversationId, from, to))
}

/** Why a stored record cannot be read as a message, or undefined when it can. */
export function problemOf(record: unknown): string | undefined {
  if (record === null || typeof record !== 'object' || !('message' in record))
    return 'the stored record holds no message'
  const { message } = record as MessageRecord
  if (!isMessage(message)) return 'the stored record is not a valid message'
  const notPlain = whyNotPlainData(message)
  return notPlain && `the stored message is not plain data: ${notPlain}`
}

/** The conversation's record and where its log is; a conversation of layout 2 (or a garbled record) is read to find out. */
export async function stateOf(
  stores: LogStores,
  conversationId: string,
): Promise<{ record: ConversationRecord | undefined; state: LogState }> {
  const record = (await resultOf(stores.conversations.get(conversationId))) as ConversationRecord | undefined
  if (record && isLogState(record)) return { record, state: { ...record, system: [...record.system] } }
  const records = (await resultOf(stores.messages.getAll(range(conversationId)))) as MessageRecord[]
  const state: LogState = {
    start: records[0]?.seq ?? 0,
    next: (records.at(-1)?.seq ?? -1) + 1,
    system: [],
    count: 0,
    systemFirst: false,
  }
  for (const stored of records) {
    if (problemOf(stored) !== undefined) continue
    if ((stored.message as Message).role === 'system') state.system.push(stored.seq)
    else state.count++
  }
  return { record, state }
}

/** Every valid message of the log, oldest first (system messages first after a cut, as `windowOf` keeps them). */
export async function readAll(stores: LogStores, conversationId: string, report: CorruptReport): Promise<Message[]> {
  const { state } = await stateOf(stores, conversationId)
  const records = await recordsIn(stores, conversationId, Math.min(state.start, ...state.system), state.next)
  const entries = validEntries(records, report)
  return (state.systemFirst ? systemFirst(entries) : entries).map((entry) => entry.message)
}

/**
 * The window of `maxMessages`: the system messages and the newest others back to the cut (see
 * WindowCut). A window that holds the whole log is read in one request; a longer log is read from
 * its end back, in growing batches, until the cut is found. `start` is the seq of its oldest
 * message that is not a system message (`next` when it has none); every record from `read` on was
 * read.
 */
export async function readWindow(
  stores: LogStores,
  conversationId: string,
  state: LogState,
  maxMessages: number,
  report: CorruptReport,
): Promise<{ entries: Entry[]; start: number; read: number }> {
  const system = new Set(state.system)
  if (state.system.length + state.count <= maxMessages) {
    // System messages older than the start are kept: the records between them and it are gone.
    const from = Math.min(state.start, ...state.system)
    const records = await recordsIn(stores, conversationId, from, state.next)
    const inOrder = validEntries(records, report).filter(
      (entry) => entry.message.role !== 'system' || system.has(entry.seq),
    )
    const entries = state.systemFirst ? systemFirst(inOrder) : inOrder
    return { entries, start: entries.find((entry) => entry.message.role !== 'system')?.seq ?? state.next, read: from }
  }
  const cut = new WindowCut(Math.max(0, maxMessages - state.system.length))
  const newestFirst: Entry[] = []
  const systemEntries = new Map<number, Entry>()
  let high = state.next
  let batch = cut.keep + 16
  let found = false
  reading: while (high > state.start) {
    const low = Math.max(state.start, high - batch)
    const records = await recordsIn(stores, conversationId, low, high)
    for (let i = records.length - 1; i >= 0; i--) {
      const [entry] = validEntries([records[i]!], report)
      if (!entry) continue
      if (entry.message.role === 'system') {
        if (system.has(entry.seq)) systemEntries.set(entry.seq, entry)
        continue
      }
      newestFirst.push(entry)
      if (!cut.older(entry.message.role)) {
        found = true
        break reading
      }
    }
    high = low
    batch *= 2
  }
  const window = newestFirst.slice(0, cut.kept).reverse()
  for (const seq of state.system) {
    if (systemEntries.has(seq)) continue
    const [entry] = validEntries(
      [(await resultOf(stores.messages.get([conversationId, seq]))) as MessageRecord],
      report,
    )
    if (entry?.message.role === 'system') systemEntries.set(seq, entry)
  }
  const inOrder = [...systemEntries.values(), ...window].sort((a, b) => a.seq - b.seq)
  const entries = cut.over || state.systemFirst ? systemFirst(inOrder) : inOrder
  const start = window[0]?.seq ?? state.next
  return { entries, start, read: found ? start : state.start }
}

/**
 * Appends `messages` (a system message replaces the current ones) and, when the window of
 * `maxMessages` is full, moves the start to the window's cut and deletes what fell out of it.
 */
export async function append(
  stores: LogStores,
  conversationId: string,
  messages: readonly Message[],
  maxMessages: number,
  report: CorruptReport,
): Promise<void> {
  const { record, state } = await stateOf(stores, conversationId)
  if (messages.some((message) => message.role === 'system')) {
    for (const seq of state.system) stores.messages.delete([conversationId, seq])
    state.system = []
    state.systemFirst = false
  }
  for (const message of messages) {
    const seq = state.next++
    stores.messages.put({ conversationId, seq, message: withBlobAttachments(message) } satisfies MessageRecord)
    if (message.role === 'system') state.system.push(seq)
    else state.count++
  }
  if (state.system.length + state.count > maxMessages) {
    const window = await readWindow(stores, conversationId, state, maxMessages, report)
    dropBefore(stores, conversationId, state, window.start)
    state.count = window.entries.filter((entry) => entry.message.role !== 'system').length
    state.systemFirst = true
  }
  save(stores, conversationId, record, state, messages, 'append')
}

/**
 * Replaces the window with `change(window)`. Messages it keeps (the same objects) keep their
 * records, the ones it drops are deleted, and a message it changes is written in the place of one
 * it dropped: a repair only deletes and rewrites what it touched. Any other change rewrites the
 * window whole. What was outside the window goes.
 */
export async function updateWindow(
  stores: LogStores,
  conversationId: string,
  maxMessages: number,
  change: (window: Message[]) => Message[],
  report: CorruptReport,
): Promise<void> {
  const { record, state } = await stateOf(stores, conversationId)
  const window = await readWindow(stores, conversationId, state, maxMessages, report)
  const changed = checked(conversationId, change(window.entries.map((entry) => entry.message)))
  // Nothing changed: nothing is written (a full disk does not fail a repair that found nothing).
  if (changed.length === window.entries.length && changed.every((message, i) => message === window.entries[i]!.message))
    return
  const places = placesOf(window.entries, changed, state.next)
  const order = places && orderOf(changed, places)
  if (!places || order === undefined) return rewrite(stores, conversationId, record, changed)
  const kept = new Set(changed)
  for (const entry of window.entries) if (!kept.has(entry.message)) stores.messages.delete([conversationId, entry.seq])
  const seqOf = new Map(window.entries.map((entry) => [entry.message, entry.seq]))
  changed.forEach((message, index) => {
    if (seqOf.get(message) !== places[index])
      stores.messages.put({ conversationId, seq: places[index]!, message: withBlobAttachments(message) })
  })
  dropBefore(stores, conversationId, state, window.start)
  state.system = changed.flatMap((message, index) => (message.role === 'system' ? [places[index]!] : []))
  state.count = changed.length - state.system.length
  state.systemFirst = order === 'system first'
  state.next = Math.max(state.next, ...places.map((seq) => seq + 1))
  save(stores, conversationId, record, state, [], 'change')
}

/** Replaces the whole conversation with `messages`, from seq 0. */
export function rewrite(
  stores: LogStores,
  conversationId: string,
  record: ConversationRecord | undefined,
  messages: readonly Message[],
): void {
  stores.messages.delete(range(conversationId))
  messages.forEach((message, seq) =>
    stores.messages.put({ conversationId, seq, message: withBlobAttachments(message) } satisfies MessageRecord),
  )
  const system = messages.flatMap((message, seq) => (message.role === 'system' ? [seq] : []))
  const state: LogState = {
    start: 0,
    next: messages.length,
    system,
    count: messages.length - system.length,
    systemFirst: false,
  }
  save(stores, conversationId, record, state, messages, 'rewrite')
}

/**
 * The messages, or a ChatMemoryError-ready reason: each must be a message of plain data, so that it
 * can be read back, compared and sent.
 */
export function unstorableOf(messages: readonly Message[]): string | undefined {
  for (const [index, message] of messages.entries()) {
    const problem = isMessage(message) ? whyNotPlainData(message) : 'it is not a message'
    if (problem) return `message ${index + 1} of ${messages.length}: ${problem}`
  }
  return undefined
}

/** Thrown inside a step so that its transaction is aborted before anything is written. */
export class UnstorableMessages extends Error {
  override readonly name = 'UnstorableMessages'
}

function checked(conversationId: string, messages: Message[]): Message[] {
  const problem = unstorableOf(messages)
  if (problem) throw new UnstorableMessages(problem)
  return messages
}

/**
 * Where each changed message goes: a kept one stays at its seq, a new one takes the seq of a
 * dropped one between its neighbours (or the next free seq after the last), in order. Undefined
 * when the change does not fit (kept messages reordered or repeated, a new system message, no
 * free seq).
 */
function placesOf(entries: readonly Entry[], changed: readonly Message[], next: number): number[] | undefined {
  const seqOf = new Map(entries.map((entry) => [entry.message, entry.seq]))
  const kept = new Set(changed)
  const free = entries
    .filter((entry) => !kept.has(entry.message) && entry.message.role !== 'system')
    .map((entry) => entry.seq)
    .sort((a, b) => a - b)
  const places: number[] = []
  let last = -1
  for (let index = 0; index < changed.length; index++) {
    const message = changed[index]!
    const seq = seqOf.get(message)
    if (seq !== undefined && places.includes(seq)) return undefined
    if (message.role === 'system') {
      if (seq === undefined) return undefined
      places.push(seq)
      continue
    }
    if (seq !== undefined) {
      // A kept message stays where it is, or the change is not one that fits in place.
      if (seq < last) return undefined
      places.push((last = seq))
      continue
    }
    const bound = nextKeptSeq(changed, index, seqOf) ?? Infinity
    const slot = free.find((candidate) => candidate > last && candidate < bound)
    const place = slot ?? (bound === Infinity ? Math.max(next, last + 1) : undefined)
    if (place === undefined) return undefined
    if (slot !== undefined) free.splice(free.indexOf(slot), 1)
    else next = place + 1
    places.push((last = place))
  }
  return places
}

/** Which reading order gives the changed messages back in their order, if either does. */
function orderOf(changed: readonly Message[], places: readonly number[]): 'seq' | 'system first' | undefined {
  const increasing = (seqs: number[]) => seqs.every((seq, i) => i === 0 || seq > seqs[i - 1]!)
  if (increasing([...places])) return 'seq'
  const systemCount = changed.filter((message) => message.role === 'system').length
  const systemAtFront = changed.slice(0, systemCount).every((message) => message.role === 'system')
  if (systemAtFront && increasing(places.slice(0, systemCount)) && increasing(places.slice(systemCount)))
    return 'system first'
  return undefined
}

function nextKeptSeq(changed: readonly Message[], index: number, seqOf: Map<Message, number>): number | undefined {
  for (let i = index + 1; i < changed.length; i++) {
    const seq = changed[i]!.role === 'system' ? undefined : seqOf.get(changed[i]!)
    if (seq !== undefined) return seq
  }
  return undefined
}

/** Deletes the records before `start` but the current system messages, and moves the log's start there. */
function dropBefore(stores: LogStores, conversationId: string, state: LogState, start: number): void {
  let from = state.start
  for (const seq of [...state.system].sort((a, b) => a - b)) {
    if (seq >= start) break
    deleteIn(stores, conversationId, from, seq)
    from = Math.max(from, seq + 1)
  }
  deleteIn(stores, conversationId, from, start)
  state.start = Math.max(state.start, start)
}

function save(
  stores: LogStores,
  conversationId: string,
  previous: ConversationRecord | undefined,
  state: LogState,
  added: readonly Message[],
  how: 'append' | 'change' | 'rewrite',
): void {
  const now = Date.now()
  const named =
    previous !== undefined && previous.title !== '' && previous.title !== conversationId && how !== 'rewrite'
  stores.conversations.put({
    id: conversationId,
    title: (named ? previous.title : titleOf(added)) || previous?.title || conversationId,
    createdAt: previous?.createdAt ?? now,
    updatedAt: now,
    messageCount: state.system.length + state.count,
    start: state.start,
    next: state.next,
    system: state.system,
    count: state.count,
    systemFirst: state.systemFirst,
    revision: (how === 'append' && previous?.revision) || newId(),
  } satisfies ConversationRecord)
}

export function titleOf(messages: readonly Message[]): string {
  const first = messages.find((message) => message.role === 'user')
  const text = first?.role === 'user' ? first.text.trim().replace(/\s+/g, ' ') : ''
  return text.length > 80 ? `${text.slice(0, 79)}…` : text
}

export function validEntries(records: readonly MessageRecord[], report: CorruptReport): Entry[] {
  const entries: Entry[] = []
  for (const record of records) {
    const problem = problemOf(record)
    if (problem === undefined) entries.push({ seq: record.seq, message: record.message as Message })
    else report(typeof record?.seq === 'number' ? record.seq : -1, problem)
  }
  return entries
}

/** The entries with the system messages first, each part in seq order. */
export function systemFirst(entries: readonly Entry[]): Entry[] {
  return [
    ...entries.filter((entry) => entry.message.role === 'system'),
    ...entries.filter((entry) => entry.message.role !== 'system'),
  ]
}

function isLogState(record: ConversationRecord): record is ConversationRecord & LogState {
  const { start, next, system, count, systemFirst } = record
  return (
    typeof systemFirst === 'boolean' &&
    Number.isSafeInteger(start) &&
    Number.isSafeInteger(next) &&
    Number.isSafeInteger(count) &&
    start! <= next! &&
    Array.isArray(system) &&
    system.every((seq) => Number.isSafeInteger(seq) && seq < next!)
  )
}
