// What every app of the cold-start bench shares: the question, the tool, and the turn the runner
// starts with window.runTurn().

export const QUESTION = 'What is the weather in Paris?'
export const MODEL = 'bench-model'
export const API_KEY = 'bench-key'
/** The bench server answers on the page's own origin. */
export function baseURL(): string {
  return `${location.origin}/v1`
}

export const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'The current weather in a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string', description: 'The city, e.g. Paris' } },
    required: ['city'],
    additionalProperties: false,
  },
} as const

export function weather(city: string) {
  return { city, temperatureC: 18, sky: 'sunny' }
}

/** Page clock readings (performance.now()) of one turn, and its answer. */
export interface Turn {
  callAt: number
  firstTextAt: number
  answer: string
}

declare global {
  interface Window {
    runTurn?: () => Promise<Turn>
  }
}

/**
 * Lets the runner start a turn: `turn` is called at once, calls `onText` with each piece of text as
 * it arrives (an app that gets the whole answer at once calls it once) and resolves to the answer.
 */
export function exposeTurn(turn: (onText: () => void) => Promise<string>): void {
  window.runTurn = async () => {
    const callAt = performance.now()
    let firstTextAt = 0
    const answer = await turn(() => {
      if (firstTextAt === 0) firstTextAt = performance.now()
    })
    return { callAt, firstTextAt, answer }
  }
}
