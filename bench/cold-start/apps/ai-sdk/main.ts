// AI SDK 7: streamText with one tool and room for the second step, the text read from textStream.
import { createOpenAI } from '@ai-sdk/openai'
import { isStepCount, streamText, tool } from 'ai'
import { z } from 'zod'
import { API_KEY, MODEL, QUESTION, WEATHER_TOOL, baseURL, exposeTurn, weather } from '../shared'

const openai = createOpenAI({ baseURL: baseURL(), apiKey: API_KEY })
const tools = {
  [WEATHER_TOOL.name]: tool({
    description: WEATHER_TOOL.description,
    inputSchema: z.object({ city: z.string().describe('The city, e.g. Paris') }),
    execute: async ({ city }) => weather(city),
  }),
}

exposeTurn(async (onText) => {
  const result = streamText({ model: openai.chat(MODEL), prompt: QUESTION, tools, stopWhen: isStepCount(2) })
  let text = ''
  for await (const delta of result.textStream) {
    if (!delta) continue
    onText()
    text += delta
  }
  return text
})
