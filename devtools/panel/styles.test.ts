import { describe, expect, it } from 'vitest'
import { styles } from './styles'

describe("the panel's CSS", () => {
  it('animates nothing: an animation restyles the panel on every frame of the page while it runs', () => {
    expect(styles).not.toMatch(/animation(-name)?\s*:|@keyframes|transition\s*:/)
  })

  it('gives every bar a colour', () => {
    // The retrieval bar's rule once sat inside a media query, leaving the bar transparent.
    expect(styles).toMatch(/^\.bar\.retrieval \{ background:/m)
  })
})
