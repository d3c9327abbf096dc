import { encode as o200k } from 'gpt-tokenizer/encoding/o200k_base'
import llama3 from 'llama3-tokenizer-js'
import { describe, expect, it } from 'vitest'
import { CharacterTokenCountEstimator } from '../src'
import { textOfMessage } from '../src/session/token-count-estimator'
import { LANGUAGES, conversation } from './token-estimate-corpus'

// The benchmark's goal as a check: the estimate stays within 10% of Llama 3's and o200k's counts of
// the message texts (chat-template framing aside) for each language of bench/token-estimate-corpus.

describe('CharacterTokenCountEstimator against real tokenizers', () => {
  it.each(LANGUAGES)('%s: within 10% of Llama 3 and o200k', (language) => {
    const messages = conversation(language)
    const estimator = new CharacterTokenCountEstimator()
    const estimate = estimator.estimate(messages) - 5 * messages.length
    const texts = messages.map(textOfMessage)
    const counts = {
      llama3: texts.reduce((sum, text) => sum + llama3.encode(text, { bos: false, eos: false }).length, 0),
      o200k: texts.reduce((sum, text) => sum + o200k(text).length, 0),
    }
    for (const count of Object.values(counts)) expect(Math.abs(estimate / count - 1)).toBeLessThan(0.1)
  })
})
