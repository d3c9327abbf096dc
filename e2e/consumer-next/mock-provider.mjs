// An OpenAI-compatible provider on loopback for the Next.js app's route: the first request of a
// turn gets a tool call for get_weather, the one after the tool result the answer; /v1/embeddings
// answers a vector per input. It checks that the route added the key (401 when it did not), capped
// the output tokens and put the server's system prompt first (400 when it did not).
import { createServer } from 'node:http'

const port = Number(process.argv[2] ?? 4190)
const KEY = 'sk-consumer-next-test-key'
const SYSTEM = 'You are the weather assistant of this app.'

function refuse(response, message) {
  response.writeHead(400, { 'content-type': 'application/json' })
  response.end(JSON.stringify({ error: { message } }))
}

function chunk(delta, finish = null) {
  return `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: 'mock-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
}

createServer((request, response) => {
  let body = ''
  request.on('data', (data) => (body += data))
  request.on('end', () => {
    if (request.headers.authorization !== `Bearer ${KEY}`) {
      response.writeHead(401, { 'content-type': 'application/json' })
      return response.end(JSON.stringify({ error: { message: 'bad key' } }))
    }
    const sent = JSON.parse(body)
    if (request.url === '/v1/embeddings') {
      const data = sent.input.map((text, index) => ({ index, embedding: [text.length, 1] }))
      response.writeHead(200, { 'content-type': 'application/json' })
      return response.end(
        JSON.stringify({ data, usage: { prompt_tokens: sent.input.length, total_tokens: sent.input.length } }),
      )
    }
    if (sent.max_completion_tokens !== 512)
      return refuse(response, `expected the cap, got ${sent.max_completion_tokens}`)
    if (sent.messages[0]?.role !== 'system' || sent.messages[0].content !== SYSTEM)
      return refuse(response, `expected the server's system prompt first, got ${JSON.stringify(sent.messages[0])}`)
    response.writeHead(200, { 'content-type': 'text/event-stream' })
    const answered = sent.messages.some((message) => message.role === 'tool')
    if (!answered) {
      const call = { index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }
      response.write(chunk({ role: 'assistant', tool_calls: [call] }))
      response.write(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }))
      response.write(chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }))
      response.write(chunk({}, 'tool_calls'))
    } else {
      for (const word of ['It is ', 'sunny in ', 'Paris, ', '21 °C.']) response.write(chunk({ content: word }))
      response.write(chunk({}, 'stop'))
    }
    response.end('data: [DONE]\n\n')
  })
}).listen(port, '127.0.0.1', () => console.log(`mock provider on ${port}`))
