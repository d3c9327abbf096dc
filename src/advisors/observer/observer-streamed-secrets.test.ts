import { describe, expect, it } from 'vitest'
import { ChatClient } from '../../client'
import { registerSecret, type ChatModel, type ChatResponse } from '../../core'
import { TraceCollector, cassetteFromTrace, exportTrace, toOtlp, type TraceEvent } from '../../trace'
import { seeded } from '../../trace/testing/random-text'
import { ObserverAdvisor } from './observer'

// Secrets of every length, registered and pattern-matched, streamed split at random points through
// text and reasoning deltas: no event, export, cassette or span may show one.

const KEY_CHARACTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-'
const ALPHANUMERIC = KEY_CHARACTERS.slice(0, 62)

/** The built-in patterns' markers, the characters their keys are made of, and how many a key needs at least. */
const PATTERNS = [
  { marker: 'sk-', characters: KEY_CHARACTERS, least: 16 },
  { marker: 'sk-proj-', characters: KEY_CHARACTERS, least: 13 },
  { marker: 'gsk_', characters: ALPHANUMERIC, least: 20 },
  { marker: 'AIza', characters: KEY_CHARACTERS, least: 30 },
  { marker: 'hf_', characters: ALPHANUMERIC, least: 20 },
  { marker: 'Bearer ', characters: ALPHANUMERIC, least: 12 },
]

interface Secret {
  value: string
  /** The longest first piece of it that may show: what a pattern needs before it can tell. */
  shown: number
}

function randomOf(random: () => number, characters: string, length: number): string {
  let text = ''
  for (let i = 0; i < length; i++) text += characters[Math.floor(random() * characters.length)]
  return text
}

// Registered secrets of lengths from the shortest registered (6) to 206: an app registers a few.
const poolRandom = seeded(99)
const REGISTERED = Array.from({ length: 24 }, (_, i) => `reg-${randomOf(poolRandom, KEY_CHARACTERS, 2 + i * i * 0.35)}`)
for (const secret of REGISTERED) registerSecret(secret)

function randomSecret(random: () => number): Secret {
  if (random() < 0.4) return { value: REGISTERED[Math.floor(random() * REGISTERED.length)]!, shown: 0 }
  const { marker, characters, least } = PATTERNS[Math.floor(random() * PATTERNS.length)]!
  const value = marker + randomOf(random, characters, least + Math.floor(random() * (random() < 0.3 ? 400 : 40)))
  return { value, shown: marker.length + least - 1 }
}

/** Words and secrets, each secret set apart by spaces as a model would write it. */
function textWith(random: () => number, secrets: Secret[]): string {
  let text = ''
  for (let piece = 0; piece < 12; piece++) {
    text += 'The weather is fine and the answer is 42. '.slice(0, 1 + Math.floor(random() * 43))
    if (random() < 0.5) {
      const secret = randomSecret(random)
      secrets.push(secret)
      text += ` ${secret.value} `
    }
  }
  return text
}

/** `text` cut at random points, mostly into a few characters, now and then into many. */
function splitAtRandom(random: () => number, text: string): string[] {
  const pieces: string[] = []
  for (let at = 0; at < text.length;) {
    const size = 1 + Math.floor(random() * (random() < 0.1 ? 120 : 6))
    pieces.push(text.slice(at, at + size))
    at += size
  }
  return pieces
}

function delta(text: string, reasoning?: string, finishReason?: string): ChatResponse {
  const output = { role: 'assistant' as const, text, toolCalls: [], ...(reasoning ? { reasoning } : {}) }
  return { results: [{ output, metadata: finishReason ? { finishReason } : {} }], metadata: {} }
}

/** A model that thinks, then answers, in the deltas it is given. */
function thinkingModel(thought: string[], answer: string[]): ChatModel {
  return {
    provider: 'test',
    call: () => Promise.reject(new Error('this model only streams')),
    stream: async function* () {
      for (const piece of thought) yield delta('', piece)
      for (const piece of answer) yield delta(piece)
      yield delta('', undefined, 'stop')
    },
  }
}

/** The longest piece of `secret` found in `text`, when longer than `allowed`; '' when none is. */
function leakedPiece(text: string, secret: string, allowed: number): string {
  const length = Math.min(allowed + 1, secret.length)
  for (let at = 0; at + length <= secret.length; at++) {
    const piece = secret.slice(at, at + length)
    if (text.includes(piece)) return piece
  }
  return ''
}

/** The streamed text and reasoning as a reader of the chunks sees them: each channel's chunks joined. */
function streamedChannels(events: readonly TraceEvent[]): string[] {
  const chunks = events.flatMap((event) => (event.type === 'model-chunk' ? [event] : []))
  return [chunks.map((chunk) => chunk.text).join(''), chunks.map((chunk) => chunk.reasoning ?? '').join('')]
}

describe('ObserverAdvisor keeps streamed secrets out of every event and export', () => {
  it('never shows a registered or pattern-matched secret of any length split through text and reasoning deltas', async () => {
    const random = seeded(2028)
    let secretsStreamed = 0
    for (let trial = 0; trial < 30; trial++) {
      const secrets: Secret[] = []
      const thought = splitAtRandom(random, textWith(random, secrets))
      const answer = splitAtRandom(random, textWith(random, secrets))
      const collector = new TraceCollector()
      const redact = trial % 2 ? { values: [/4242/] } : undefined
      const client = ChatClient.builder(thinkingModel(thought, answer))
        .defaultAdvisors(
          new ObserverAdvisor({ sink: collector, performanceTrack: false, ...(redact ? { redact } : {}) }),
        )
        .build()
      for await (const _ of client.prompt('Tell me').stream().content());

      const events = collector.events
      const exported = [exportTrace(events), JSON.stringify(cassetteFromTrace(events)), JSON.stringify(toOtlp(events))]
      const channels = streamedChannels(events)
      for (const secret of secrets) {
        for (const text of [...channels, ...exported]) expect(text).not.toContain(secret.value)
        // No piece shows either, but for the first characters a pattern needs before it can tell.
        for (const text of channels) expect(leakedPiece(text, secret.value, Math.max(secret.shown, 5))).toBe('')
      }
      secretsStreamed += secrets.length
    }
    expect(secretsStreamed).toBeGreaterThan(200)
    // Thirty whole streams through a client: more than the default 5 s on a busy machine.
  }, 60_000)
})
