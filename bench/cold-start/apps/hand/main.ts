// No library: fetch, parse the SSE, run the tool, send its result, stream the answer.
import { API_KEY, MODEL, QUESTION, WEATHER_TOOL, baseURL, exposeTurn, weather } from '../shared'

interface Chunk {
  choices: Array<{
    delta?: {
      content?: string | null
      tool_calls?: Array<{ index: number; id?: string; function?: { name?: string; arguments?: string } }>
    }
  }>
}

async function* chunks(response: Response): AsyncGenerator<Chunk> {
  if (!response.ok || !response.body) throw new Error(`the model answered ${response.status}`)
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  for (;;) {
    const { value, done } = await reader.read()
    if (done) return
    buffer += value
    let end
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      for (const line of event.split('\n')) {
        if (!line.startsWith('data:')) continue
        const data = line.slice(5).trim()
        if (data === '[DONE]') return
        yield JSON.parse(data) as Chunk
      }
    }
  }
}

const tools = [{ type: 'function', function: WEATHER_TOOL }]

exposeTurn(async (onText) => {
  const messages: unknown[] = [{ role: 'user', content: QUESTION }]
  for (;;) {
    const response = await fetch(`${baseURL()}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` },
      body: JSON.stringify({ model: MODEL, messages, tools, stream: true }),
    })
    let text = ''
    const calls: Array<{ id: string; name: string; arguments: string }> = []
    for await (const chunk of chunks(response)) {
      const delta = chunk.choices[0]?.delta
      if (delta?.content) {
        onText()
        text += delta.content
      }
      for (const part of delta?.tool_calls ?? []) {
        const call = (calls[part.index] ??= { id: '', name: '', arguments: '' })
        call.id ||= part.id ?? ''
        call.name ||= part.function?.name ?? ''
        call.arguments += part.function?.arguments ?? ''
      }
    }
    if (calls.length === 0) return text
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: calls.map(({ id, name, arguments: args }) => ({
        id,
        type: 'function',
        function: { name, arguments: args },
      })),
    })
    for (const call of calls) {
      const { city } = JSON.parse(call.arguments) as { city: string }
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(weather(city)) })
    }
  }
})
