// The client both advisor-chain apps use: OpenAIChatModel, one defineTool tool, an ObserverAdvisor
// writing to a sink that keeps the events. Only the package's public API.
import { ChatClient, ObserverAdvisor, OpenAIChatModel, defineTool } from 'advisor-chain'
import { API_KEY, MODEL, WEATHER_TOOL, baseURL, weather } from './shared'

const getWeather = defineTool({
  name: WEATHER_TOOL.name,
  description: WEATHER_TOOL.description,
  inputSchema: WEATHER_TOOL.parameters,
  execute: ({ city }) => weather(city),
})

const events: unknown[] = []
const sink = { emit: (event: unknown) => void events.push(event) }

export const client = ChatClient.builder(new OpenAIChatModel({ baseURL: baseURL(), apiKey: API_KEY, model: MODEL }))
  .defaultTools(getWeather)
  .defaultAdvisors(new ObserverAdvisor({ sink }))
  .build()
