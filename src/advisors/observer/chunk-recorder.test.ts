import { describe, expect, it } from 'vitest'
import { registerSecret, type ChatResponse } from '../../core'
import { REDACTED, Redactor, type TraceEvent } from '../../trace'
import { SecretStreamScrubber } from '../../trace/secret-stream'
import { RunRecorder } from './run-recorder'
import { seeded, textWithSecrets } from '../../trace/testing/random-text'
import { referenceMask } from '../../trace/testing/reference-mask'

// Registered secrets stay registered for the rest of this file: each is used only here.
const REGISTERED = ['reg-9d8c7b6a5f4e', 'Be-registered-key-0001']
for (const secret of REGISTERED) registerSecret(secret)

interface Step {
  text: string
  finishReason?: string
}

/**
 * What the recorder must record for each chunk, as it did before the tail learned to skip text
 * without a marker: the scrubber's output, masked as the reference says.
 */
function reference(redactor: Redactor, steps: Step[]): string[] {
  let scrubber = new SecretStreamScrubber()
  const mask = referenceMask(redactor)
  const recorded = steps.map((step) => {
    let raw = scrubber.push(step.text)
    if (step.finishReason) raw += scrubber.flush()
    return mask(raw)
  })
  const heldBack = scrubber.flush()
  if (heldBack) recorded.push(mask(heldBack))
  scrubber = new SecretStreamScrubber()
  return recorded
}

function record(redactor: Redactor, steps: Step[]): string[] {
  const events: TraceEvent[] = []
  const run = new RunRecorder('run-1', { emit: (event) => events.push(event) }, redactor, () => events.length, 'test')
  const recorder = run.chunks
  steps.forEach((step, index) =>
    recorder.chunk(1, index, {
      results: [
        {
          output: { role: 'assistant', text: step.text, toolCalls: [] },
          metadata: step.finishReason ? { finishReason: step.finishReason } : {},
        },
      ],
      metadata: {},
    } satisfies ChatResponse),
  )
  recorder.endOfResponse(1)
  recorder.flush()
  return events.flatMap((event) => (event.type === 'model-chunk' ? [event] : []).map((chunk) => chunk.text))
}

const secrets = [
  ...REGISTERED,
  'sk-abcdefghijklmnopqrstuvwx',
  `sk-proj-${'aB3_-'.repeat(31)}`,
  'Bearer abcdefghijklmnop',
  'hf_abcdefghijklmnopqrstuvw',
  'sk-short',
  'reg-9d8c',
]

describe('ChunkRecorder masks streamed text', () => {
  it('as the scrubber and the reference mask say, also with finish reasons mid-stream', () => {
    const random = seeded(11)
    const redactors = [new Redactor(), new Redactor({ values: [/4242/] })]
    let masked = 0
    for (let trial = 0; trial < 300; trial++) {
      const text = textWithSecrets(random, secrets, 500)
      const steps: Step[] = []
      for (let at = 0; at < text.length;) {
        const size = 1 + Math.floor(random() * (random() < 0.1 ? 120 : 6))
        steps.push({ text: text.slice(at, at + size), ...(random() < 0.03 ? { finishReason: 'stop' } : {}) })
        at += size
      }
      for (const redactor of redactors) {
        const expected = reference(redactor, steps).join('')
        expect(record(redactor, steps).join('')).toBe(expected)
        masked += expected.split(REDACTED).length - 1
      }
    }
    expect(masked).toBeGreaterThan(1000)
  })

  it('never records a registered secret that a finish reason split, even when text follows it', () => {
    const recorded = record(new Redactor(), [
      { text: 'key: reg-9d8c', finishReason: 'stop' },
      { text: '7b6a5f4e and more' },
    ])
    expect(recorded.join('')).not.toContain('7b6a5f4e')
  })
})
