import type { Message } from '../core'

/** Counts (or estimates) the tokens a model would read for some messages. */
export interface TokenCountEstimator {
  estimate(messages: readonly Message[]): number | Promise<number>
  /**
   * Told, after a model call, what the estimate was and how many prompt tokens the model reported,
   * so that later estimates follow the model's own tokenizer.
   */
  observe?(estimated: number, reported: number): void
}

/** Tokens a chat template adds around each message (role markers, separators). */
const PER_MESSAGE = 4
/** CJK ideographs, kana and hangul: about one token each in the tokenizers of small models. */
const DENSE = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/g

/**
 * Estimates tokens from characters: about four characters of English a token, one CJK character a
 * token, two of other scripts. Each observed answer (the prompt tokens the model reported) moves a
 * correction factor toward that model's tokenizer.
 */
export class CharacterTokenCountEstimator implements TokenCountEstimator {
  #correction = 1

  estimate(messages: readonly Message[]): number {
    let tokens = 0
    for (const message of messages) tokens += PER_MESSAGE + rawTokens(textOfMessage(message))
    return Math.ceil(tokens * this.#correction)
  }

  observe(estimated: number, reported: number): void {
    if (!(estimated > 0) || !(reported > 0) || !Number.isFinite(reported)) return
    const raw = estimated / this.#correction
    // Half-way toward the newest ratio: one odd answer does not swing it, a few settle it.
    const target = Math.min(4, Math.max(0.25, reported / raw))
    this.#correction = (this.#correction + target) / 2
  }

  /** The factor the estimates are multiplied by (1 until a model reported usage). */
  get correction(): number {
    return this.#correction
  }
}

function rawTokens(text: string): number {
  const dense = text.match(DENSE)?.length ?? 0
  let ascii = 0
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) < 128) ascii++
  const other = text.length - dense - ascii
  return Math.ceil(ascii / 4 + dense + other / 2)
}

/** The text a model reads for a message: its words, tool calls with their arguments, tool results. */
export function textOfMessage(message: Message): string {
  switch (message.role) {
    case 'assistant':
      return [
        message.text,
        message.reasoning ?? '',
        ...message.toolCalls.map((call) => `${call.name}(${call.arguments})`),
      ].join(' ')
    case 'tool':
      return message.responses.map((response) => `${response.name}: ${response.responseData}`).join(' ')
    default:
      return message.text
  }
}
