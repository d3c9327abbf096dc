import { throwIfAborted, type Message, type ChatModel, type ChatResponse, type Prompt } from '../core'
import type { Cassette, Interaction } from '../trace'
import { validateCassette } from './validate-cassette'

/** The prompt sent during a replay is not the one recorded (`diff` shows where), or was never recorded. */
export class ReplayMismatchError extends Error {
  override readonly name = 'ReplayMismatchError'

  constructor(
    readonly interaction: number,
    readonly diff: string,
    message = `Model call #${interaction + 1} sent a different prompt than the recording:\n${diff}`,
  ) {
    super(message)
  }
}

export interface ReplayOptions {
  /** Compare each prompt with the recorded one and fail on a difference (default true). */
  strict?: boolean
  /** Wait between streamed chunks, to look like the original (default 0). */
  chunkDelayMs?: number
}

/**
 * A test double that plays a cassette back: each model call gets the next recorded response, and
 * (strict) the prompt must be the recorded one, or the call fails with a readable diff.
 */
export class ReplayChatModel implements ChatModel {
  readonly provider = 'replay'
  #next = 0

  constructor(
    readonly cassette: Cassette,
    private readonly options: ReplayOptions = {},
  ) {
    validateCassette(cassette)
  }

  /** Model calls not played yet. */
  get remaining(): number {
    return this.cassette.interactions.length - this.#next
  }

  async call(prompt: Prompt, signal?: AbortSignal): Promise<ChatResponse> {
    throwIfAborted(signal)
    const { response } = this.#take(prompt)
    return {
      results: [
        {
          output: { role: 'assistant', text: response.text, toolCalls: response.toolCalls },
          metadata: response.finishReason ? { finishReason: response.finishReason } : {},
        },
      ],
      metadata: {
        ...(response.model ? { model: response.model } : {}),
        ...(response.usage ? { usage: response.usage } : {}),
      },
    }
  }

  async *stream(prompt: Prompt, signal?: AbortSignal): AsyncGenerator<ChatResponse, void, undefined> {
    throwIfAborted(signal)
    const { response } = this.#take(prompt)
    for (const text of response.chunks ?? (response.text ? [response.text] : [])) {
      if (this.options.chunkDelayMs) await new Promise((resolve) => setTimeout(resolve, this.options.chunkDelayMs))
      throwIfAborted(signal)
      yield { results: [{ output: { role: 'assistant', text, toolCalls: [] }, metadata: {} }], metadata: {} }
    }
    yield {
      results: [
        {
          output: { role: 'assistant', text: '', toolCalls: response.toolCalls },
          metadata: response.finishReason ? { finishReason: response.finishReason } : {},
        },
      ],
      metadata: {
        ...(response.model ? { model: response.model } : {}),
        ...(response.usage ? { usage: response.usage } : {}),
      },
    }
  }

  #take(prompt: Prompt): Interaction {
    const index = this.#next
    const interaction = this.cassette.interactions[index]
    if (!interaction) {
      const recorded = this.cassette.interactions.length
      const diff = promptDiff([], prompt.messages)
      throw new ReplayMismatchError(
        index,
        diff,
        `Model call #${index + 1} was not recorded: the cassette holds ${recorded} model call${recorded === 1 ? '' : 's'}. Record the session again, or find out why the model is called more often now. It sent:\n${diff}`,
      )
    }
    if (this.options.strict !== false) {
      const diff = promptDiff(interaction.request.messages, prompt.messages)
      if (diff) throw new ReplayMismatchError(index, diff)
    }
    this.#next++
    return interaction
  }
}

/** A line per message; the lines that differ, marked `-` (recorded) and `+` (sent). Empty when equal. */
export function promptDiff(recorded: readonly Message[], sent: readonly Message[]): string {
  const before = recorded.map(line)
  const after = sent.map(line)
  if (before.length === after.length && before.every((text, i) => text === after[i])) return ''
  const lines: string[] = []
  const length = Math.max(before.length, after.length)
  for (let i = 0; i < length; i++) {
    if (before[i] === after[i]) lines.push(`  ${i + 1}. ${before[i]}`)
    else {
      if (before[i] !== undefined) lines.push(`- ${i + 1}. ${before[i]}`)
      if (after[i] !== undefined) lines.push(`+ ${i + 1}. ${after[i]}`)
    }
  }
  return lines.join('\n')
}

function line(message: Message): string {
  const clip = (text: string) => (text.length > 160 ? `${text.slice(0, 157)}…` : text)
  switch (message.role) {
    case 'tool':
      return `tool: ${message.responses.map((response) => `${response.name}#${response.id} → ${clip(response.responseData)}`).join(' | ')}`
    case 'assistant':
      return `assistant: ${clip(message.text)}${message.toolCalls.map((call) => ` [${call.name}(${clip(call.arguments)})]`).join('')}`
    default:
      return `${message.role}: ${clip(message.text)}`
  }
}
