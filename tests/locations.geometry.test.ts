/**
 * Track geometry (src/lib/geo.ts): pure rules, tested with coordinates whose
 * distances the test computes itself.
 */
import { describe, expect, test } from 'bun:test'
import { GAP_MIN_S, haversineMeters, jumpFlags, summarizeTrack, type TrackPoint } from '../src/lib/geo'
import { distance, north, R } from './support/geo'

const T0 = Date.parse('2026-11-23T01:00:00.000Z')
const JAKARTA = { lat: -6.2, lng: 106.816666 }
const at = (p: { lat: number; lng: number }, seconds: number): TrackPoint => ({ ...p, at: T0 + seconds * 1000 })

describe('haversineMeters', () => {
  test('one degree of latitude is R·π/180 metres', () => {
    expect(haversineMeters({ lat: 0, lng: 0 }, { lat: 1, lng: 0 })).toBeCloseTo((R * Math.PI) / 180, 3)
  })

  test('agrees with an independent formula over short and long distances', () => {
    const pairs = [
      [JAKARTA, { lat: -6.201, lng: 106.817 }],
      [JAKARTA, { lat: -7.2575, lng: 112.7521 }], // Surabaya
      [
        { lat: 3.5952, lng: 98.6722 },
        { lat: -2.5337, lng: 140.7181 },
      ], // Medan – Jayapura
      [
        { lat: 10, lng: 179.9 },
        { lat: 10, lng: -179.9 },
      ], // across the antimeridian
    ]
    for (const [a, b] of pairs) expect(Math.abs(haversineMeters(a!, b!) - distance(a!, b!))).toBeLessThan(0.01 + distance(a!, b!) * 1e-9)
  })

  test('is symmetric and zero for the same point', () => {
    const b = { lat: -6.3, lng: 106.9 }
    expect(haversineMeters(JAKARTA, b)).toBe(haversineMeters(b, JAKARTA))
    expect(haversineMeters(JAKARTA, JAKARTA)).toBe(0)
  })
})

describe('jumpFlags: impossible_speed over 70 m/s, teleport over 5 km within 60 s', () => {
  test('the first ping of a user has nothing to compare with', () => {
    expect(jumpFlags(null, at(JAKARTA, 0))).toEqual([])
  })

  test('69 m/s is possible, 71 m/s is not', () => {
    expect(jumpFlags(at(JAKARTA, 0), at(north(JAKARTA, 6_900), 100))).toEqual([])
    expect(jumpFlags(at(JAKARTA, 0), at(north(JAKARTA, 7_100), 100))).toEqual(['impossible_speed'])
  })

  test('5.1 km in 60 s is a teleport (and too fast); 5.1 km in 61 s is only too fast; 4.9 km in 60 s is only too fast', () => {
    expect(jumpFlags(at(JAKARTA, 0), at(north(JAKARTA, 5_100), 60))).toEqual(['impossible_speed', 'teleport'])
    expect(jumpFlags(at(JAKARTA, 0), at(north(JAKARTA, 5_100), 61))).toEqual(['impossible_speed'])
    expect(jumpFlags(at(JAKARTA, 0), at(north(JAKARTA, 4_900), 60))).toEqual(['impossible_speed'])
  })

  test('a car at 20 m/s for an hour is clean', () => {
    expect(jumpFlags(at(JAKARTA, 0), at(north(JAKARTA, 72_000), 3_600))).toEqual([])
  })

  test('two pings with the same device time count as one second apart', () => {
    expect(jumpFlags(at(JAKARTA, 10), at(north(JAKARTA, 50), 10))).toEqual([])
    expect(jumpFlags(at(JAKARTA, 10), at(north(JAKARTA, 80), 10))).toEqual(['impossible_speed'])
  })

  test('order of the two pings does not matter for the speed', () => {
    expect(jumpFlags(at(north(JAKARTA, 7_100), 100), at(JAKARTA, 0))).toEqual(['impossible_speed'])
  })
})

describe('summarizeTrack', () => {
  test('an empty day has no segments, no time and no distance', () => {
    expect(summarizeTrack([])).toEqual({ segments: [], stops: [], gaps: [], distance_m: 0, moving_s: 0, stopped_s: 0, first_at: null, last_at: null })
  })

  test('distance is the sum of the legs; time between moving pings is moving time', () => {
    const points = [at(JAKARTA, 0), at(north(JAKARTA, 500), 60), at(north(JAKARTA, 1_500), 180), at(north(JAKARTA, 1_200), 240)]
    const summary = summarizeTrack(points)
    const expected = distance(points[0]!, points[1]!) + distance(points[1]!, points[2]!) + distance(points[2]!, points[3]!)
    expect(summary.distance_m).toBeCloseTo(expected, 2)
    expect(summary.distance_m).toBeCloseTo(1_800, 0)
    expect(summary.segments).toEqual([points])
    expect(summary).toMatchObject({ moving_s: 240, stopped_s: 0, gaps: [], stops: [], first_at: T0, last_at: T0 + 240_000 })
  })

  test('a gap over 15 minutes splits the line, is reported, and its straight line is not counted', () => {
    const a = at(JAKARTA, 0)
    const b = at(north(JAKARTA, 300), 60)
    const c = at(north(JAKARTA, 10_300), 60 + GAP_MIN_S + 1)
    const d = at(north(JAKARTA, 10_600), 120 + GAP_MIN_S + 1)
    const summary = summarizeTrack([a, b, c, d])
    expect(summary.segments).toEqual([
      [a, b],
      [c, d],
    ])
    expect(summary.gaps).toEqual([{ from: b.at, to: c.at }])
    expect(summary.distance_m).toBeCloseTo(distance(a, b) + distance(c, d), 2)
    expect(summary.moving_s).toBe(120)
  })

  test('exactly 15 minutes without a ping is not a gap', () => {
    const summary = summarizeTrack([at(JAKARTA, 0), at(north(JAKARTA, 5_000), GAP_MIN_S)])
    expect(summary.gaps).toEqual([])
    expect(summary.segments).toHaveLength(1)
  })

  test('a stop is at least 5 minutes within 100 m: its centre, times and duration', () => {
    const shop = north(JAKARTA, 2_000)
    const points = [
      at(JAKARTA, 0),
      at(shop, 300),
      at(north(shop, 40), 420),
      at(north(shop, -30), 540),
      at(north(shop, 90), 660), // still within 100 m of the stop's first ping
      at(north(shop, 900), 720),
    ]
    const summary = summarizeTrack(points)
    expect(summary.stops).toHaveLength(1)
    const stop = summary.stops[0]!
    expect(stop).toMatchObject({ started_at: T0 + 300_000, ended_at: T0 + 660_000, duration_s: 360 })
    expect(distance(stop, north(shop, 25))).toBeLessThan(0.5) // the mean of 0, 40, -30 and 90 m
    expect(summary.stopped_s).toBe(360)
    expect(summary.moving_s).toBe(720 - 360)
  })

  test('4 minutes 59 seconds in one place is not a stop; leaving the 100 m radius ends one', () => {
    const shop = north(JAKARTA, 2_000)
    expect(summarizeTrack([at(shop, 0), at(north(shop, 10), 299)]).stops).toEqual([])
    const broken = summarizeTrack([at(shop, 0), at(north(shop, 101), 200), at(shop, 400)])
    expect(broken.stops).toEqual([])
  })

  test('a gap while standing still is both a gap and stopped time', () => {
    const points = [at(JAKARTA, 0), at(north(JAKARTA, 10), 60), at(north(JAKARTA, 5), 60 + 3_600)]
    const summary = summarizeTrack(points)
    expect(summary.stops).toHaveLength(1)
    expect(summary.stops[0]!.duration_s).toBe(3_660)
    expect(summary.gaps).toEqual([{ from: points[1]!.at, to: points[2]!.at }])
    expect(summary.stopped_s).toBe(3_660)
    expect(summary.moving_s).toBe(0)
  })
})
