/** A number of hours as people say it: "12 hours", "1 day", "3 days". */
export function hoursText(hours: number): string {
  if (hours % 24 === 0) return hours === 24 ? '1 day' : `${hours / 24} days`;
  return hours === 1 ? '1 hour' : `${hours} hours`;
}
