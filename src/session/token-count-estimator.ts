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

/** Tokens a chat template adds around each message (role markers, separators): Llama 3's adds 5, OpenAI's 4. */
const PER_MESSAGE = 5
// Rates per script, tuned against Llama 3's and o200k's vocabularies (bench/token-estimate.bench.ts).
/** Han ideographs: a little under a token each. */
const HAN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/g
/** Kana and hangul: about 0.8 of a token each (common words merge). */
const KANA_HANGUL = /[\u3040-\u30ff\uac00-\ud7af]/g
/** ASCII punctuation and digits: JSON, code, numbers and dates split around them, so they cost more than letters. */
const ASCII_DENSE = /[!-@[-`{-~]/g

/**
 * Estimates tokens from characters, per script: about 4.5 characters of English a token, two of
 * ASCII punctuation or digits, 0.95 of a token a Han character, 0.8 a kana or hangul, two characters
 * of other scripts; five tokens a message for the chat template. Within 5% of Llama 3 and o200k on
 * English, Chinese, Japanese and Korean conversations (the README's figures). Each observed answer
 * (the prompt tokens the model reported, or its own count) moves a correction factor toward that
 * model's tokenizer.
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
  const han = text.match(HAN)?.length ?? 0
  const kanaHangul = text.match(KANA_HANGUL)?.length ?? 0
  const punctuation = text.match(ASCII_DENSE)?.length ?? 0
  let ascii = 0
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) < 128) ascii++
  const other = text.length - han - kanaHangul - ascii
  return Math.ceil((ascii - punctuation) / 4.5 + punctuation / 2 + han * 0.95 + kanaHangul * 0.8 + other / 2)
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
