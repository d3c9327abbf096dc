import { appendToLastUserMessage, OUTPUT_SCHEMA_KEY, type ChatModel, type Prompt, contextValue } from '../core'
import { formatInstructions } from '../schema'

/**
 * The prompt as the model should get it when the call asks for structured output: constrained by
 * `responseFormat` when the model supports it, else with format instructions after the last user
 * message. Done at the last moment, so advisors (memory, the trace) see the user's own words.
 */
export function withOutputFormat(prompt: Prompt, context: Readonly<Record<string, unknown>>, model: ChatModel): Prompt {
  const schema = contextValue(context, OUTPUT_SCHEMA_KEY)
  if (!schema || prompt.options.responseFormat) return prompt
  if (model.supportsNativeStructuredOutput) {
    return {
      ...prompt,
      options: { ...prompt.options, responseFormat: { type: 'json_schema', schema, name: 'output' } },
    }
  }
  return { ...prompt, messages: appendToLastUserMessage(prompt.messages, formatInstructions(schema)) }
}
