import type { ChatCompletionParams } from '@wllama/wllama'
import type { JsonSchema, Prompt } from '../core'
import {
  constrainedTurns,
  engineSampling,
  offeredTools,
  plainTurns,
  replySchema,
  textOfUserMessage,
  withAttachments,
  textOnly,
} from '../models'

/** llama.cpp here reads text: plain-text files become text, anything else is refused before decoding. */
const TEXT_ONLY = textOnly('WllamaChatModel reads text only: send text, or a plain-text file.')

export interface WllamaRequest {
  params: ChatCompletionParams
  /** Whether the reply is the constrained JSON envelope of the tool strategy. */
  constrained: boolean
}

/**
 * The chat completion for a prompt. The model file's own chat template renders the turns; tools
 * and response schemas become a JSON Schema that llama.cpp turns into a grammar.
 */
export async function toWllamaRequest(prompt: Prompt, model: string): Promise<WllamaRequest> {
  const messages = await withAttachments(prompt.messages, TEXT_ONLY, { provider: 'wllama', label: 'llama.cpp', model })
  const { options } = prompt
  const { tools, callRequired } = offeredTools(options)
  const format = options.responseFormat
  const answerSchema: JsonSchema | undefined = format?.type === 'json_schema' ? format.schema : undefined
  const params: ChatCompletionParams = {
    messages: [],
    ...(engineSampling(options, 'wllama') as Partial<ChatCompletionParams>),
  }
  if (tools.length > 0) {
    params.messages = constrainedTurns(messages, tools, textOfUserMessage)
    params.response_format = jsonSchema(replySchema(tools, answerSchema, { callRequired }))
    return { params, constrained: true }
  }
  params.messages = plainTurns(messages, textOfUserMessage)
  if (answerSchema) params.response_format = jsonSchema(answerSchema)
  else if (format?.type === 'json_object') params.response_format = { type: 'json_object' }
  return { params, constrained: false }
}

function jsonSchema(schema: JsonSchema): ChatCompletionParams['response_format'] {
  const { $schema: _draft, ...rest } = schema
  return { type: 'json_schema', json_schema: { name: 'reply', schema: rest } }
}
