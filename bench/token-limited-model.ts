// A test double, not a model: a ScriptedChatModel with a 4,096-token window that counts every
// prompt with a real tokenizer (gpt-tokenizer's o200k_base, GPT-4o's) the way OpenAI's chat format
// charges it, and refuses a prompt whose tokens plus its maxTokens exceed the window with OpenAI's
// `context_length_exceeded` error — as a remote model without a token counter behaves. Otherwise it
// calls `lookup` when the prompt ends with the user's question and tools are offered, answers
// (400–2,600 characters, up to ~475 tokens) after the tool's result, and writes a 300-character
// summary when asked without tools (the compaction's summarizer).
// It reports the prompt tokens it counted as `usage`, as a provider does.
import { countTokens } from 'gpt-tokenizer'
import { ChatModelError, ScriptedChatModel, type Message, type Prompt, type ScriptedReply } from '../src'
import { TOPICS } from './long-session'

/** OpenAI's chat format: a few tokens around each message, three to prime the reply. */
const PER_MESSAGE = 3
const REPLY_PRIMING = 3

export function promptTokens(prompt: Prompt): number {
  let tokens = REPLY_PRIMING
  for (const message of prompt.messages) tokens += PER_MESSAGE + countTokens(`${message.role}\n${renderText(message)}`)
  const tools = prompt.options.tools ?? []
  if (tools.length > 0) tokens += countTokens(JSON.stringify(tools.map((tool) => tool.definition)))
  return tokens
}

function renderText(message: Message): string {
  switch (message.role) {
    case 'assistant':
      return [
        message.text,
        ...message.toolCalls.map((call) => JSON.stringify({ name: call.name, arguments: call.arguments })),
      ].join('\n')
    case 'tool':
      return message.responses.map((response) => `${response.id}: ${response.responseData}`).join('\n')
    default:
      return message.text
  }
}

const SENTENCE = 'The assistant weighed what the listing said against the question and gave a careful, plain answer. '

const SUMMARY =
  'The user asked about trains, weather, prices, museums and hotels; the assistant looked each up and answered. '
    .repeat(3)
    .slice(0, 300)

/** A deterministic answer of 400–2,600 characters for the `index`-th request. */
function answerText(index: number): string {
  const length = 400 + ((index * 7919) % 2201)
  return SENTENCE.repeat(Math.ceil(length / SENTENCE.length)).slice(0, length)
}

export function tokenLimitedModel(contextWindow = 4096): ScriptedChatModel {
  return new ScriptedChatModel(
    (prompt, index): ScriptedReply => {
      const tokens = promptTokens(prompt)
      const maxTokens = prompt.options.maxTokens ?? 0
      if (tokens + maxTokens > contextWindow)
        return {
          error: new ChatModelError(
            `This model's maximum context length is ${contextWindow} tokens. However, you requested ${tokens + maxTokens} tokens (${tokens} in the messages, ${maxTokens} in the completion). Please reduce the length of the messages or completion.`,
            { provider: 'scripted', status: 400, code: 'context_length_exceeded', retryable: false },
          ),
        }
      const last = prompt.messages.at(-1)
      const offered = (prompt.options.tools ?? []).some((tool) => tool.definition.name === 'lookup')
      if (offered && last?.role === 'user') {
        const topic = TOPICS[index % TOPICS.length]!
        return { toolCalls: [{ name: 'lookup', arguments: { topic } }], usage: usage(tokens, 20) }
      }
      const text = offered ? answerText(index) : SUMMARY
      return { text, usage: usage(tokens, countTokens(text)) }
    },
    { contextWindow, model: `scripted, ${contextWindow}-token window (o200k_base count)` },
  )
}

function usage(promptTokens: number, completionTokens: number) {
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens }
}
