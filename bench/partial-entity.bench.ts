// 1 MB of JSON in 4-character chunks through client.prompt().stream().partialEntity(schema) (every
// partial value read, then the validated entity) against the same chunks as text through
// .stream().content(), in the same run. The goal: partialEntity costs at most 1.5x content().
import { ChatClient, type ChatModel, type ChatResponse } from '../src'
import { median, report, round } from './measure'

const CHUNK = 4
const day = (n: number) => ({
  day: n,
  title: `Day ${n}: the old town, the river and a "slow" lunch`,
  activities: ['Walk the castle walls', 'Tram 28 to the top', 'Fado at night \u00e9'],
  budget: 42.5 + n,
  booked: n % 2 === 0,
  note: null,
})
const days: Array<ReturnType<typeof day>> = []
let size = 0
for (let n = 1; size < 1024 * 1024; n++) {
  days.push(day(n))
  size += JSON.stringify(day(n)).length + 1
}
const answer = JSON.stringify({ destination: 'Lisbon', days })
// The same days in weeks: the widest array is 7 times narrower, and so is each partial's copy.
const weeks = Array.from({ length: Math.ceil(days.length / 7) }, (_, week) => ({
  week: week + 1,
  days: days.slice(week * 7, week * 7 + 7),
}))
const weeksAnswer = JSON.stringify({ destination: 'Lisbon', weeks })

const tripSchema = {
  type: 'object',
  properties: {
    destination: { type: 'string' },
    days: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          day: { type: 'integer' },
          title: { type: 'string' },
          activities: { type: 'array', items: { type: 'string' } },
          budget: { type: 'number' },
          booked: { type: 'boolean' },
          note: { type: 'null' },
        },
        required: ['day', 'title', 'activities'],
      },
    },
  },
  required: ['destination', 'days'],
} as const

const weeksSchema = {
  type: 'object',
  properties: {
    destination: { type: 'string' },
    weeks: {
      type: 'array',
      items: {
        type: 'object',
        properties: { week: { type: 'integer' }, days: tripSchema.properties.days },
        required: ['week', 'days'],
      },
    },
  },
  required: ['destination', 'weeks'],
} as const

function chunk(text: string): ChatResponse {
  return { results: [{ output: { role: 'assistant', text, toolCalls: [] }, metadata: {} }], metadata: {} }
}
function chunked(text: string): ChatResponse[] {
  const chunks: ChatResponse[] = []
  for (let i = 0; i < text.length; i += CHUNK) chunks.push(chunk(text.slice(i, i + CHUNK)))
  return chunks
}
// What an app streams: a trip of 7 days (about 1.3 KB), asked for again until 1 MB has streamed.
const tripAnswer = JSON.stringify({ destination: 'Lisbon', days: days.slice(0, 7) })
const trips = Math.ceil(answer.length / tripAnswer.length)
const prebuilt = chunked(answer)
const weeksPrebuilt = chunked(weeksAnswer)

function streamingClient(chunks: ChatResponse[]): ChatClient {
  const model: ChatModel = {
    provider: 'bench',
    call: () => Promise.reject(new Error('not used')),
    stream: async function* () {
      yield* chunks
    },
  }
  return ChatClient.create(model)
}
const client = streamingClient(prebuilt)
const weeksClient = streamingClient(weeksPrebuilt)
const tripClient = streamingClient(chunked(tripAnswer))

async function asText(): Promise<number> {
  const start = performance.now()
  let length = 0
  for await (const delta of client.prompt('go').stream().content()) length += delta.length
  if (length !== answer.length) throw new Error(`read ${length} characters`)
  return performance.now() - start
}

async function asPartialEntity(): Promise<{ ms: number; partials: number }> {
  const start = performance.now()
  const stream = client.prompt('go').stream().partialEntity(tripSchema)
  let partials = 0
  for await (const partial of stream) if (partial) partials++
  const entity = await stream.entity
  if (entity.days.length !== days.length) throw new Error(`read ${entity.days.length} days`)
  return { ms: performance.now() - start, partials }
}

async function weeksAsPartialEntity(): Promise<number> {
  const start = performance.now()
  const stream = weeksClient.prompt('go').stream().partialEntity(weeksSchema)
  for await (const partial of stream) if (!partial) throw new Error('no partial')
  if ((await stream.entity).weeks.length !== weeks.length) throw new Error('weeks lost')
  return performance.now() - start
}

async function weeksAsText(): Promise<number> {
  const start = performance.now()
  let length = 0
  for await (const delta of weeksClient.prompt('go').stream().content()) length += delta.length
  if (length !== weeksAnswer.length) throw new Error(`read ${length} characters`)
  return performance.now() - start
}

async function tripsAsPartialEntity(): Promise<number> {
  const start = performance.now()
  for (let trip = 0; trip < trips; trip++) {
    const stream = tripClient.prompt('go').stream().partialEntity(tripSchema)
    for await (const partial of stream) if (!partial) throw new Error('no partial')
    if ((await stream.entity).days.length !== 7) throw new Error('days lost')
  }
  return performance.now() - start
}

async function tripsAsText(): Promise<number> {
  const start = performance.now()
  let length = 0
  for (let trip = 0; trip < trips; trip++)
    for await (const delta of tripClient.prompt('go').stream().content()) length += delta.length
  if (length !== trips * tripAnswer.length) throw new Error(`read ${length} characters`)
  return performance.now() - start
}

const textMs: number[] = []
const entityMs: number[] = []
const weeksTextMs: number[] = []
const weeksEntityMs: number[] = []
const tripsTextMs: number[] = []
const tripsEntityMs: number[] = []
let partials = 0
for (let run = 0; run < 7; run++) {
  textMs.push(await asText())
  const result = await asPartialEntity()
  entityMs.push(result.ms)
  partials = result.partials
  weeksTextMs.push(await weeksAsText())
  weeksEntityMs.push(await weeksAsPartialEntity())
  tripsTextMs.push(await tripsAsText())
  tripsEntityMs.push(await tripsAsPartialEntity())
}
report('partial-entity', {
  what: '1 MB of JSON in 4-character chunks: partialEntity (every partial read, then the validated entity) vs content()',
  bytes: answer.length,
  chunks: prebuilt.length,
  partials,
  contentMs: round(median(textMs), 1),
  partialEntityMs: round(median(entityMs), 1),
  ratioToContent: round(median(entityMs) / median(textMs), 2),
  // The same 1 MB with the days in weeks of 7: each partial copies a 7 times narrower array.
  weeksRatioToContent: round(median(weeksEntityMs) / median(weeksTextMs), 2),
  // The same 1 MB as 7-day trips of about 1.3 KB, one stream each: the shape a UI streams.
  trips,
  tripsRatioToContent: round(median(tripsEntityMs) / median(tripsTextMs), 2),
})
