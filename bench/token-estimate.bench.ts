// How close CharacterTokenCountEstimator (what sessions use for a model that cannot count) comes to
// real tokenizers, for the same conversation in English, Chinese, Japanese and Korean
// (bench/token-estimate-corpus.ts: a system prompt and three turns, each with a tool round). The
// figure is estimate / count, per language and tokenizer, in one run: Llama 3's (the WebLLM models'
// family; llama3-tokenizer-js) framed in Llama 3's chat format, and OpenAI's o200k and cl100k
// (gpt-tokenizer) framed as OpenAI counts a chat. Each message's content is the text the estimator
// reads (textOfMessage: words, tool calls with their arguments, tool results). The goal: within 10%
// (0.9–1.1) of Llama 3 and o200k; cl100k, an older vocabulary with far more tokens for CJK, is shown
// for comparison (the estimator's correction from reported usage covers such a model).
// wllama needs no estimate: WllamaChatModel.countTokens is exact (src/wllama/wllama.browser.test.ts).
import { encode as cl100k } from 'gpt-tokenizer/encoding/cl100k_base'
import { encode as o200k } from 'gpt-tokenizer/encoding/o200k_base'
import llama3 from 'llama3-tokenizer-js'
import { CharacterTokenCountEstimator, type Message } from '../src'
import { textOfMessage } from '../src/session/token-count-estimator'
import { report, round } from './measure'
import { LANGUAGES, conversation } from './token-estimate-corpus'

const llama3Tokens = (text: string) => llama3.encode(text, { bos: false, eos: false }).length

/** Llama 3's chat format: <|begin_of_text|>, then <|start_header_id|>role<|end_header_id|>\n\ncontent<|eot_id|> a message, then the assistant's header. */
function llama3Count(messages: readonly Message[]): number {
  const header = (role: string) => 2 + llama3Tokens(role) + 1
  const role = (message: Message) => (message.role === 'tool' ? 'ipython' : message.role)
  return (
    1 + messages.reduce((sum, m) => sum + header(role(m)) + llama3Tokens(textOfMessage(m)) + 1, 0) + header('assistant')
  )
}

/** OpenAI's count of a chat: three tokens a message around its role and content, three to start the reply. */
function openAiCount(encode: (text: string) => number[], messages: readonly Message[]): number {
  return messages.reduce((sum, m) => sum + 3 + encode(m.role).length + encode(textOfMessage(m)).length, 0) + 3
}

const figures: Record<string, Record<string, number>> = {}
for (const language of LANGUAGES) {
  const messages = conversation(language)
  const estimate = new CharacterTokenCountEstimator().estimate(messages)
  const counts = {
    llama3: llama3Count(messages),
    o200k: openAiCount(o200k, messages),
    cl100k: openAiCount(cl100k, messages),
  }
  figures[language] = {
    estimate,
    ...counts,
    'estimate/llama3': round(estimate / counts.llama3),
    'estimate/o200k': round(estimate / counts.o200k),
    'estimate/cl100k': round(estimate / counts.cl100k),
  }
}

report('token-estimate', {
  what: 'estimated tokens / tokenizer count for one conversation (13 messages, 3 tool rounds) per language; goal 0.9-1.1 for llama3 and o200k',
  ...figures,
})
