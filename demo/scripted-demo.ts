import {
  attachmentsOf,
  ChatModelError,
  ScriptedChatModel,
  type Message,
  type Prompt,
  type ScriptStep,
  type ScriptedReply,
} from 'advisor-chain'
import { RESEARCHER_SYSTEM } from './researcher'
import { answerFromDocuments } from './scripted-documents'

// The offline demo's model: a ScriptedChatModel (a test double, not a model) whose replies are
// chosen from what the user typed and what the tools returned, so every advisor can be shown
// without a GPU or a key. It says so in its answers.

export const scenarios = [
  { prompt: 'What time is it here?', shows: 'one tool round' },
  { prompt: 'Note: buy oat milk, then list my notes', shows: 'two rounds, two tools' },
  { prompt: 'What is (12 + 30) * 1.5 and what time is it?', shows: 'parallel tool calls' },
  { prompt: 'Roll a dice', shows: 'a returnDirect tool' },
  { prompt: 'Delete note 1', shows: 'tool approval' },
  { prompt: 'Ask the researcher what this page is about', shows: 'a sub-agent, nested in the devtools' },
  { prompt: 'Switch to dark theme', shows: 'a tool that changes the page' },
  { prompt: 'Tell me a long story', shows: 'streaming (try Stop)' },
  { prompt: 'Try a flaky provider', shows: 'retries' },
  { prompt: 'Show me a provider error', shows: 'an error' },
  { prompt: 'Make the local engine fail', shows: 'local first: the round goes remote (turn on "Local first")' },
]

const pause = 18
let flakyCalls = 0

function lastOf(messages: readonly Message[]): Message | undefined {
  return messages.at(-1)
}

function lastUserText(messages: readonly Message[]): string {
  return messages.findLast((message) => message.role === 'user')?.text ?? ''
}

function call(name: string, args: Record<string, unknown>): { name: string; arguments: Record<string, unknown> } {
  return { name, arguments: args }
}

function say(text: string, delayMs = pause): ScriptedReply {
  return { text, delayMs }
}

/** After tool results: an answer that reads them. */
function answerFromTools(messages: readonly Message[]): ScriptStep {
  const results = lastOf(messages)
  if (results?.role !== 'tool') return say('Done.')
  const user = lastUserText(messages).toLowerCase()
  const parts = results.responses.map((response) => {
    const data = tryParse(response.responseData)
    if (response.responseData.startsWith('Error:'))
      return `the ${response.name} tool failed (${response.responseData.slice(7)})`
    switch (response.name) {
      case 'local_time':
        return `it is ${String(data?.time)} on ${String(data?.date)} (${String(data?.timeZone)})`
      case 'calculate':
        return `${String(data?.expression)} = ${String(data?.result)}`
      case 'add_note':
        return `I saved the note "${String((data?.saved as { text?: string })?.text)}"`
      case 'list_notes':
        return Array.isArray(data)
          ? `your notes: ${data.map((n: { id: string; text: string }) => `#${n.id} ${n.text}`).join('; ')}`
          : 'you have no notes'
      case 'delete_note':
        return response.responseData.startsWith('The user declined')
          ? 'I left the note alone, as you asked'
          : response.responseData
      case 'set_theme':
        return response.responseData
      case 'researcher':
        return `the researcher says: ${response.responseData}`
      default:
        return response.responseData
    }
  })
  // Two-step requests: after saving a note, list them.
  if (user.includes('then list') && results.responses.some((r) => r.name === 'add_note')) {
    return { text: 'Saved. Now the list:', toolCalls: [call('list_notes', {})], delayMs: pause }
  }
  const sentence = parts.join(', and ')
  return say(`${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`)
}

function tryParse(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text) as unknown
    return value !== null && typeof value === 'object'
      ? (value as Record<string, unknown>)
      : Array.isArray(value)
        ? (value as never)
        : undefined
  } catch {
    return undefined
  }
}

/** The structured-output example: the first answer breaks the schema, the retry fixes it. */
function tripPlan(prompt: Prompt): ScriptStep {
  const asked = lastUserText(prompt.messages)
  const retried = asked.includes('Output JSON validation failed')
  const city = /trip to ([\p{L} ]+?)(?:[.,!?\n]|$)/iu.exec(asked)?.[1]?.trim() ?? 'Lisbon'
  const stops = [
    { time: '09:30', place: `${city} old town`, note: 'Walk before the crowds' },
    { time: '12:30', place: 'Market hall', note: 'Lunch from the stalls' },
    { time: '15:00', place: 'Riverside museum' },
    { time: '18:30', place: 'Viewpoint', note: 'Sunset' },
  ]
  const plan = retried
    ? { city, title: `A day in ${city}`, stops, budgetEUR: 80 }
    : { city, title: `A day in ${city}`, stops: stops.map(({ place, note }) => ({ place, note })), budgetEUR: '80' }
  // Slow enough to watch the card fill in as the plan streams.
  return { text: '```json\n' + JSON.stringify(plan, null, 2) + '\n```', delayMs: 20 }
}

/** An image sent by the user: the scripted model cannot see it, but says what it received, then notes it. */
function aboutAttachments(messages: readonly Message[]): ScriptStep | undefined {
  const user = messages.findLast((message) => message.role === 'user')
  const images = user ? attachmentsOf(user).filter((part) => part.type === 'image') : []
  if (images.length === 0) return undefined
  const names = images.map((image) => image.name ?? 'an image').join(', ')
  return {
    text: `You sent ${names}. I am scripted and cannot see pixels, but the model request carried it as an image part (see the prompt in the devtools). I will note it. `,
    toolCalls: [call('add_note', { text: `image: ${names}` })],
    delayMs: pause,
  }
}

/** The researcher sub-agent's turns: it reads the page, then sums up what it found. */
function research(messages: readonly Message[]): ScriptStep {
  const results = lastOf(messages)
  if (results?.role !== 'tool')
    return { text: 'Reading the page first. ', toolCalls: [call('page_outline', {})], delayMs: pause }
  const outline = tryParse(results.responses[0]?.responseData ?? '')
  const headings = Array.isArray(outline?.['headings']) ? (outline['headings'] as string[]) : []
  const title = typeof outline?.['title'] === 'string' ? outline['title'] : 'untitled'
  return say(
    `The page is "${title}"; its headings are ${headings.slice(0, 4).join(', ') || 'none'}. (Scripted: a sub-agent run of its own.)`,
  )
}

export function scriptedDemoModel(options: { model?: string } = {}): ScriptedChatModel {
  return new ScriptedChatModel(
    (prompt) => {
      const messages = prompt.messages
      if (messages[0]?.role === 'system' && messages[0].text === RESEARCHER_SYSTEM) return research(messages)
      if (lastOf(messages)?.role === 'tool') return answerFromTools(messages)
      const attached = aboutAttachments(messages)
      if (attached) return attached
      const grounded = answerFromDocuments(messages)
      if (grounded) return grounded
      if (prompt.options.responseFormat || lastUserText(messages).includes('JSON Schema')) return tripPlan(prompt)
      const text = lastUserText(messages).toLowerCase()
      const echo = /^repeat:\s*([\s\S]*)$/i.exec(lastUserText(messages))?.[1]
      if (echo !== undefined) return say(echo)
      if (/flaky/.test(text)) {
        if (flakyCalls++ % 2 === 0) {
          return {
            error: new ChatModelError(
              'Scripted provider answered HTTP 503: temporarily unavailable. Trying again usually works.',
              { provider: 'scripted', status: 503, retryable: true },
            ),
          }
        }
        return say(
          'This answer came on the second attempt: the Retry Advisor retried the failed model call (see the retry in the devtools).',
        )
      }
      if (/local engine fail/.test(text)) {
        if (options.model === undefined)
          return {
            error: new ChatModelError('Scripted: this engine cannot run on this device (no usable WebGPU).', {
              provider: 'scripted',
              code: 'unavailable',
              retryable: false,
            }),
          }
        return say(
          `The local engine failed, so ${options.model} answered this round; the devtools show why it left the device and what it cost.`,
        )
      }
      if (/provider error/.test(text)) {
        return {
          error: new ChatModelError(
            'Scripted provider answered HTTP 401 (invalid_api_key): the key was refused. Check the API key.',
            { provider: 'scripted', status: 401, code: 'invalid_api_key', retryable: false },
          ),
        }
      }
      if (/story|long/.test(text)) {
        const story =
          'Once upon a time, a request set out through a chain of advisors. The memory advisor handed it the past; the tool loop promised to come back as often as needed; the observer wrote everything down. '.repeat(
            6,
          )
        return { text: story, delayMs: 45 }
      }
      if (/researcher/.test(text)) {
        const task = /researcher\s+(.+)$/i.exec(lastUserText(messages))?.[1] ?? 'what this page is about'
        return {
          toolCalls: [call('researcher', { task: `Find out ${task.replace(/^(about|to find out)\s+/i, '')}` })],
          delayMs: pause,
        }
      }
      if (/delete|remove/.test(text) && /note/.test(text))
        return { toolCalls: [call('delete_note', { id: /\d+/.exec(text)?.[0] ?? '1' })], delayMs: pause }
      if (/note:|remember|save a note|add a note/.test(text)) {
        const note = /note:\s*(.+?)(?:,\s*then.*)?$/i.exec(lastUserText(messages))?.[1] ?? lastUserText(messages)
        return { text: 'Saving it.', toolCalls: [call('add_note', { text: note })], delayMs: pause }
      }
      if (/notes|list/.test(text)) return { toolCalls: [call('list_notes', {})], delayMs: pause }
      if (/dark|light|theme/.test(text))
        return { toolCalls: [call('set_theme', { theme: /light/.test(text) ? 'light' : 'dark' })], delayMs: pause }
      if (/dice|roll|random/.test(text))
        return { toolCalls: [call('random_number', { min: 1, max: 6 })], delayMs: pause }
      const expression = /([\d.]+\s*[-+*/%^]\s*[\d().+\-*/%^ ]+|\([\d.+\-*/%^ ()]+\)[\d.+\-*/%^ ()]*)/
        .exec(lastUserText(messages))?.[1]
        ?.trim()
      const wantsTime = /time|clock|date/.test(text)
      if (expression || wantsTime) {
        const calls = [
          ...(expression ? [call('calculate', { expression })] : []),
          ...(wantsTime ? [call('local_time', {})] : []),
        ]
        return { text: calls.length > 1 ? 'Two tools at once.' : '', toolCalls: calls, delayMs: pause }
      }
      return say(
        'I am the offline demo: scripted replies, no real model. I pick tools from keywords, so you can watch the advisor chain and the tool loop in the devtools below. Try a suggestion, or connect WebLLM or an API in the model picker.',
      )
    },
    { model: options.model ?? 'scripted-demo' },
  )
}
