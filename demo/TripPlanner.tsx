import { OutputParseError, type ChatClient, type DeepPartial, type FromJsonSchema } from 'advisor-chain'
import { useState } from 'react'

// Structured output: the answer is a validated object, rendered as a card. A plain JSON Schema, so
// it is checked by the library's fast validator, compiled when the schema is resolved (no eval).
const tripSchema = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    title: { type: 'string' },
    stops: {
      type: 'array',
      minItems: 2,
      items: {
        type: 'object',
        properties: {
          time: { type: 'string', pattern: '^\\d{2}:\\d{2}$' },
          place: { type: 'string' },
          note: { type: 'string' },
        },
        required: ['time', 'place'],
      },
    },
    budgetEUR: { type: 'number', minimum: 0 },
  },
  required: ['city', 'title', 'stops', 'budgetEUR'],
} as const

type Trip = FromJsonSchema<typeof tripSchema>

export interface TripPlannerProps {
  client: ChatClient | undefined
  validate: boolean
  onValidate: (validate: boolean) => void
}

export function TripPlanner({ client, validate, onValidate }: TripPlannerProps) {
  const [city, setCity] = useState('Lisbon')
  // The plan as it streams (complete values only), then the validated one.
  const [trip, setTrip] = useState<DeepPartial<Trip>>()
  const [streaming, setStreaming] = useState(false)
  const [error, setError] = useState<{ message: string; text?: string }>()
  const [busy, setBusy] = useState(false)
  const plan = async () => {
    if (!client) return
    setBusy(true)
    setError(undefined)
    setTrip(undefined)
    try {
      const plan = client.prompt(`Plan a day trip to ${city}.`).stream().partialEntity(tripSchema, { validate })
      setStreaming(true)
      for await (const partial of plan) setTrip(partial)
      setTrip(await plan.entity)
    } catch (failure) {
      setTrip(undefined)
      setError(
        failure instanceof OutputParseError
          ? { message: failure.message, text: failure.text }
          : { message: (failure as Error).message },
      )
    } finally {
      setBusy(false)
      setStreaming(false)
    }
  }
  return (
    <section className="card" aria-labelledby="trip-heading">
      <h2 id="trip-heading">Structured output</h2>
      <p className="hint">
        <code>stream().partialEntity(schema{validate ? ', { validate: true }' : ''})</code> turns the answer into an
        object that matches a JSON Schema: the card fills in while the model writes, and ends with the validated plan.
        {validate
          ? ' An invalid answer goes back to the model with the errors: watch the validation attempts in the devtools.'
          : ' Validation is off: an answer that does not match fails.'}
      </p>
      <label className="check">
        <input type="checkbox" checked={validate} onChange={(event) => onValidate(event.target.checked)} /> Validate and
        retry (Structured Output Validation Advisor)
      </label>
      <form
        className="form inline"
        onSubmit={(event) => {
          event.preventDefault()
          void plan()
        }}
      >
        <label>
          Day trip to
          <input value={city} onChange={(event) => setCity(event.target.value)} required />
        </label>
        <button type="submit" className="primary" disabled={!client || busy}>
          {busy ? 'Planning…' : 'Plan'}
        </button>
      </form>
      {trip && (
        <article className="trip" data-testid="trip-card" aria-busy={streaming} data-streaming={streaming}>
          <h3>{trip.title ?? '…'}</h3>
          <ol>
            {trip.stops?.map((stop, index) => (
              <li key={index}>
                <time>{stop.time}</time> <strong>{stop.place}</strong>
                {stop.note && <span className="muted"> — {stop.note}</span>}
              </li>
            ))}
          </ol>
          {trip.budgetEUR !== undefined && <p className="muted">Budget about €{trip.budgetEUR}</p>}
        </article>
      )}
      {error && (
        <div className="error-text" role="alert" data-testid="trip-error">
          {error.message}
          {error.text && <pre>{error.text}</pre>}
        </div>
      )}
    </section>
  )
}
