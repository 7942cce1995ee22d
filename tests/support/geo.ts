/**
 * The tests' own great-circle distance (spherical law of cosines: another formula than the
 * haversine of src/lib/geo.ts, so a test does not check the code with itself).
 */
export const R = 6_371_008.8
const rad = (d: number) => (d * Math.PI) / 180

export function distance(a: { lat: number; lng: number }, b: { lat: number; lng: number }) {
  const c = Math.sin(rad(a.lat)) * Math.sin(rad(b.lat)) + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.cos(rad(b.lng - a.lng))
  return R * Math.acos(Math.min(1, Math.max(-1, c)))
}

/** The point `metres` north of `p` (one degree of latitude is R·π/180 metres everywhere). */
export const north = (p: { lat: number; lng: number }, metres: number) => ({ lat: p.lat + (metres / (R * Math.PI)) * 180, lng: p.lng })
