import { describe, expect, it } from 'vitest'
import type { ChatModel, ChatResponse } from '../core'
import { collect } from '../core/testing/collect'
import { AnthropicChatModel } from './anthropic'
import { OpenAIChatModel } from './openai'
import {
  fakeFetch,
  randomCuts,
  recording,
  recordingsOf,
  responseOf,
  seededRandom,
  type Recording,
} from './testing/fixtures'

// Every streamed recording, cut into pieces at random byte offsets (inside multi-byte UTF-8
// characters too), must give exactly what the whole body gives.

const CUTS_PER_FILE = 200

function modelFor(file: string, response: Response): ChatModel {
  const { fetch } = fakeFetch(response)
  return file.startsWith('anthropic/')
    ? new AnthropicChatModel({ model: 'm', fetch })
    : new OpenAIChatModel({ model: 'm', fetch })
}

async function read(file: string, recorded: Recording, cuts: number[]): Promise<ChatResponse[] | string> {
  try {
    return await collect(
      modelFor(file, responseOf(recorded, cuts)).stream({ messages: [{ role: 'user', text: 'hi' }], options: {} }),
    )
  } catch (error) {
    return String(error)
  }
}

/** The recording with a multi-byte text delta spliced in, so cuts land inside UTF-8 sequences. */
function withMultibyte(file: string, recorded: Recording): Recording {
  const text = new TextDecoder().decode(recorded.body)
  const wide = 'Grüße, 東京 👋🏽 — ok'
  const spliced = file.startsWith('anthropic/')
    ? text.replace('"text_delta","text":"I"', `"text_delta","text":"I ${wide}"`)
    : text.replace('"content":"test response"', `"content":"test response ${wide}"`)
  return { ...recorded, body: new TextEncoder().encode(spliced) }
}

const files = recordingsOf(['openai/', 'anthropic/', 'groq/', 'openrouter/', 'vllm/', 'mistral/'], '.sse').concat(
  recordingsOf(['mistral/'], '.chunks.jsonl'),
)

describe('stream parsing survives any split of the bytes', () => {
  it('covers every streamed recording of the OpenAI-compatible and Anthropic formats', () => {
    expect(files.length).toBeGreaterThanOrEqual(10)
  })

  for (const file of files) {
    it(`${file}: ${CUTS_PER_FILE} random splits give the same result as the whole body`, async () => {
      const recorded = withMultibyte(file, recording(file))
      const whole = await read(file, recorded, [])
      const next = seededRandom(file.length * 7919)
      for (let i = 0; i < CUTS_PER_FILE; i++) {
        expect(await read(file, recorded, randomCuts(next, recorded.body.length))).toEqual(whole)
      }
    })
  }

  it('keeps multi-byte characters whole when every byte arrives alone', async () => {
    const file = 'openrouter/chat-stream-usage.sse'
    const recorded = withMultibyte(file, recording(file))
    const everyByte = Array.from({ length: recorded.body.length - 1 }, (_, i) => i + 1)
    const chunks = (await read(file, recorded, everyByte)) as ChatResponse[]
    expect(chunks[0]!.results[0]!.output.text).toBe('test response Grüße, 東京 👋🏽 — ok')
  })
})
