import { SlotCounts } from '../../lib/guards/slot-counts';

/** What `forEach` visits, as [slot, count] pairs. */
function pairs(counts: SlotCounts): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  counts.forEach((slot, count) => out.push([slot, count]));
  return out;
}

describe('SlotCounts (what an origin counts before its breaker or budget exists)', () => {
  test('counts per slot, oldest first', () => {
    const counts = new SlotCounts(3, 1);
    for (const slot of [1, 2, 5, 5, 5]) counts.add(slot);
    expect(pairs(counts)).toEqual([
      [1, 2],
      [2, 1],
      [5, 3],
    ]);
  });

  test('keeps only the newest `keep` slots: older ones have left the window', () => {
    const counts = new SlotCounts(3, 1);
    for (const slot of [2, 2, 3, 4, 9]) counts.add(slot);
    expect(pairs(counts)).toEqual([
      [3, 1],
      [4, 1],
      [9, 1],
    ]);
    const one = new SlotCounts(1, 1);
    one.add(2);
    one.add(2);
    expect(pairs(one)).toEqual([[2, 2]]);
  });
});
