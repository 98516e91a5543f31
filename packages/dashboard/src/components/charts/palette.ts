/**
 * Series colours: the Okabe–Ito palette (told apart with the common colour-vision deficiencies), then two
 * greys for "other" and secondary lines. Credits are always labelled "credits" next to the numbers.
 */
export const SERIES_COLOURS = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#000000'] as const;
export const OTHER_COLOUR = '#9e9e9e';
export const FAILURE_COLOUR = '#b3261e';

export const colourAt = (i: number): string => SERIES_COLOURS[i % SERIES_COLOURS.length] ?? OTHER_COLOUR;

export const formatCreditsShort = (n: number): string => n.toLocaleString('en-US', { maximumFractionDigits: n < 1 ? 6 : 2 });
export const formatMs = (ms: number): string => (ms >= 10_000 ? `${(ms / 1000).toFixed(0)} s` : ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`);
