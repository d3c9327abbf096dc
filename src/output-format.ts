import { appendToLastUserMessage } from './messages'
import { OUTPUT_SCHEMA_KEY } from './context-keys'
import type { ChatModel, Prompt } from './model'
import type { JsonSchema } from './schema/json-schema'
import { formatInstructions } from './schema/format-instructions'

/**
 * The prompt as the model should get it when the call asks for structured output: constrained by
 * `responseFormat` when the model supports it, else with format instructions after the last user
 * message. Done at the last moment, so advisors (memory, the trace) see the user's own words.
 */
export function withOutputFormat(prompt: Prompt, context: Readonly<Record<string, unknown>>, model: ChatModel): Prompt {
  const schema = context[OUTPUT_SCHEMA_KEY] as JsonSchema | undefined
  if (!schema || prompt.options.responseFormat) return prompt
  if (model.supportsNativeStructuredOutput) {
    return {
      ...prompt,
      options: { ...prompt.options, responseFormat: { type: 'json_schema', schema, name: 'output' } },
    }
  }
  return { ...prompt, messages: appendToLastUserMessage(prompt.messages, formatInstructions(schema)) }
}
