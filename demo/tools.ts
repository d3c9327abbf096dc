import { defineTool, type ToolCallback } from 'advisor-chain'
import { calculate } from './calculator'

// Browser tools that do real things in this page.

export interface Note {
  id: string
  text: string
  createdAt: string
}

const NOTES = 'advisor-chain-demo-notes'

export function readNotes(): Note[] {
  try {
    const notes = JSON.parse(localStorage.getItem(NOTES) ?? '[]') as unknown
    return Array.isArray(notes)
      ? (notes as Note[]).filter((note) => typeof note?.id === 'string' && typeof note.text === 'string')
      : []
  } catch {
    return []
  }
}

function writeNotes(notes: Note[]): void {
  localStorage.setItem(NOTES, JSON.stringify(notes))
  window.dispatchEvent(new Event('demo-notes-changed'))
}

export const localTime = defineTool({
  name: 'local_time',
  description: "The current local date, time and time zone of the user's browser.",
  inputSchema: { type: 'object', properties: {}, additionalProperties: false } as const,
  execute: () => {
    const now = new Date()
    return {
      date: now.toLocaleDateString(undefined, { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' }),
      time: now.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' }),
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    }
  },
})

export const addNote = defineTool({
  name: 'add_note',
  description: "Saves a short note in this browser (localStorage). Returns the note's id.",
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string', minLength: 1, maxLength: 500, description: 'The note' } },
    required: ['text'],
    additionalProperties: false,
  } as const,
  execute: ({ text }) => {
    const notes = readNotes()
    const note: Note = {
      id: String(notes.reduce((max, n) => Math.max(max, Number(n.id) || 0), 0) + 1),
      text,
      createdAt: new Date().toISOString(),
    }
    writeNotes([...notes, note])
    return { saved: note }
  },
})

export const listNotes = defineTool({
  name: 'list_notes',
  description: 'Lists the notes saved in this browser, with their ids.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false } as const,
  execute: () => {
    const notes = readNotes()
    return notes.length ? notes.map(({ id, text }) => ({ id, text })) : 'There are no notes.'
  },
})

export const deleteNote = defineTool({
  name: 'delete_note',
  description: 'Deletes a note by its id. Needs the user to approve it.',
  inputSchema: {
    type: 'object',
    properties: { id: { type: 'string', description: 'The id from list_notes' } },
    required: ['id'],
    additionalProperties: false,
  } as const,
  execute: ({ id }) => {
    const notes = readNotes()
    const kept = notes.filter((note) => note.id !== id)
    if (kept.length === notes.length) throw new Error(`there is no note with id ${id}; call list_notes for the ids`)
    writeNotes(kept)
    return `Deleted note ${id}.`
  },
})

export const setTheme = defineTool({
  name: 'set_theme',
  description: "Switches this page's colour theme.",
  inputSchema: {
    type: 'object',
    properties: { theme: { enum: ['light', 'dark'] } },
    required: ['theme'],
    additionalProperties: false,
  } as const,
  execute: ({ theme }) => {
    document.documentElement.dataset['theme'] = theme
    localStorage.setItem('advisor-chain-demo-theme', theme)
    return `The page is now ${theme}.`
  },
})

export const calculator = defineTool({
  name: 'calculate',
  description: 'Evaluates an arithmetic expression: + - * / % ^ and parentheses.',
  inputSchema: {
    type: 'object',
    properties: { expression: { type: 'string', examples: ['(12 + 30) * 1.5'] } },
    required: ['expression'],
    additionalProperties: false,
  } as const,
  execute: ({ expression }) => ({ expression, result: calculate(expression) }),
})

export const randomNumber = defineTool({
  name: 'random_number',
  description: 'Picks a random whole number between min and max (inclusive). Its result is shown to the user as is.',
  inputSchema: {
    type: 'object',
    properties: { min: { type: 'integer' }, max: { type: 'integer' } },
    required: ['min', 'max'],
    additionalProperties: false,
  } as const,
  returnDirect: true,
  execute: ({ min, max }) => {
    if (max < min) throw new Error(`max (${max}) is below min (${min})`)
    const [value] = crypto.getRandomValues(new Uint32Array(1))
    return `🎲 ${min + (value! % (max - min + 1))} (between ${min} and ${max})`
  },
})

export const demoTools: ToolCallback[] = [localTime, addNote, listNotes, deleteNote, setTheme, calculator, randomNumber]
