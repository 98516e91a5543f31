import { RANGES, type RangeDays } from '../../usage/series';

/** The 7/30/90-day choice, as radio buttons (one tab stop, arrow keys move between them). */
export function RangePicker({ name, value, onChange }: { name: string; value: RangeDays; onChange: (days: RangeDays) => void }) {
  return (
    <fieldset role="radiogroup" aria-label="Range" className="range-picker">
      <legend>Range</legend>
      {RANGES.map((r) => (
        <label key={r}>
          <input type="radio" name={name} value={r} checked={r === value} onChange={() => onChange(r)} />
          Last {r} days
        </label>
      ))}
    </fieldset>
  );
}
