#!/usr/bin/env python3
"""Derive monthly dry-bulb / wet-bulb statistics and 1 K histograms from hourly EPW files.

Reads typical-meteorological-year EnergyPlus weather files (.epw), computes the
thermodynamic wet-bulb temperature of every hour with the ASHRAE psychrometric
equations, and writes one TOML file per site in the infracalc data format
(kind = "climate").  Standard library only.

Usage:
    python3 derive_bins.py --epw-dir DIR [--out DIR] [--site ID ...]
    python3 derive_bins.py --selftest

The EPW files themselves are not part of the repository; README.md lists where
each one comes from (repository, path, commit, git blob id).  The script checks
the blob id of every file it reads, so a different file under the same name is
refused.

Psychrometrics (ASHRAE Handbook - Fundamentals 2017, SI, chapter 1):
  * saturation pressure of water vapour over ice (eq. 5, -100..0 degC) and over
    liquid water (eq. 6, 0..200 degC), Hyland-Wexler coefficients;
  * humidity ratio W = 0.621945 pw / (p - pw) (eq. 20 and 22);
  * the dew point fixes the vapour pressure, pw = pws(td) (eq. 37/38), using the
    ice curve when td < 0 degC (the Handbook's convention: below freezing the
    dew point is taken as a frost point);
  * thermodynamic wet-bulb t* solves W(t, t*, p) = W from eq. 33 (t* >= 0 degC,
    liquid water) or eq. 35 (t* < 0 degC, ice), found by bisection to 1e-6 K.
Station pressure is the EPW field; where it is missing the standard atmosphere
at the station elevation (eq. 3) stands in.  Where the dew point is missing the
relative humidity field gives pw = RH * pws(t).
"""

import argparse
import hashlib
import math
import os
import sys

# ----------------------------------------------------------------------------
# Sources.  One entry per site: the EPW file and where it came from.
# blob = git blob id (sha1 of "blob <size>\0" + content), as `git rev-parse
# COMMIT:PATH` prints it.
# ----------------------------------------------------------------------------

SITES = [
    {
        "id": "ashburn-va",
        "name": "Sterling (Washington Dulles Intl AP), Virginia, USA",
        "region": "Northern Virginia (Ashburn, Sterling, Loudoun County)",
        "country": "US",
        "file": "USA_VA_Dulles-Washington.Dulles.Intl.AP.724030_TMYx.2009-2023.epw",
        "repo": "PEESEgroup/AI-Data-Center-Analysis",
        "path": "Data/weather/USA_VA_Dulles-Washington.Dulles.Intl.AP.724030_TMYx.2009-2023.epw",
        "commit": "4bcaea42c33d90c4a6039cf486b7b824db79529e",
        "blob": "e796ebaedf15dea64dcec693f5b860a70d5cbce4",
        "dataset": "TMYx 2009-2023 (climate.onebuilding.org, from NCEI ISD hourly with ERA5 gap filling), typical months from 2009-2023",
        "as_of": "2023-12-31",
    },
    {
        "id": "chicago-il",
        "name": "Chicago O'Hare Intl AP, Illinois, USA",
        "region": "Chicago metro (Elk Grove Village, Franklin Park)",
        "country": "US",
        "file": "USA_IL_Chicago-OHare.Intl.AP.725300_TMY3.epw",
        "repo": "architecture-building-systems/ASF_Simulation",
        "path": "WeatherData/USA_IL_Chicago-OHare.Intl.AP.725300_TMY3.epw",
        "commit": "8cabb20da689f61891966dfa5d15cc82771050d3",
        "blob": "72e0fc75829fdc970b2615175fc0ff3e61c6e66b",
        "dataset": "TMY3 (NREL, 2008), typical months from 1976-2005",
        "as_of": "2005-12-31",
        "note": "same hourly values as sinergym/data/weather/USA_IL_Chicago-OHare.Intl.AP.725300_TMY3.epw in ugr-sail/sinergym (blob c48d6ffd); no TMYx file for O'Hare was found",
    },
    {
        "id": "phoenix-az",
        "name": "Phoenix Sky Harbor Intl AP, Arizona, USA",
        "region": "Phoenix metro (Mesa, Chandler, Goodyear)",
        "country": "US",
        "file": "USA_AZ_Phoenix-Sky.Harbor.Intl.AP.722780_TMY3.epw",
        "repo": "architecture-building-systems/ASF_Simulation",
        "path": "WeatherData/USA_AZ_Phoenix-Sky.Harbor.Intl.AP.722780_TMY3.epw",
        "commit": "8cabb20da689f61891966dfa5d15cc82771050d3",
        "blob": "0d3d11dd50c74bf95704a40abc9370dd40c79e85",
        "dataset": "TMY3 (NREL, 2008), typical months from 1976-2005",
        "as_of": "2005-12-31",
        "note": "TMY3 rather than TMYx 2009-2023: the TMYx file has July-August dew points up to 32 degC, which put its hourly 99.6% wet bulb 4 K above the ASHRAE 0.4% design value",
    },
    {
        "id": "dallas-tx",
        "name": "Dallas-Fort Worth Intl AP, Texas, USA",
        "region": "Dallas-Fort Worth metro",
        "country": "US",
        "file": "USA_TX_Dallas-Fort.Worth.Intl.AP.722590_TMYx.2009-2023.epw",
        "repo": "PEESEgroup/AI-Data-Center-Analysis",
        "path": "Data/weather/USA_TX_Dallas-Fort.Worth.Intl.AP.722590_TMYx.2009-2023.epw",
        "commit": "4bcaea42c33d90c4a6039cf486b7b824db79529e",
        "blob": "8462b41abd04599e81667b2340a22b4a70a25e30",
        "dataset": "TMYx 2009-2023 (climate.onebuilding.org, from NCEI ISD hourly with ERA5 gap filling), typical months from 2009-2023",
        "as_of": "2023-12-31",
        "note": "its hourly 99.6% wet bulb (27.5 degC) is 1.6 K above the ASHRAE 0.4% design value (25.9 degC), with dew points up to 29.5 degC in May and June; no TMY3 file for DFW was found to replace it",
    },
    {
        "id": "san-francisco-ca",
        "name": "San Francisco Intl AP, California, USA",
        "region": "San Francisco Bay Area (coastal station; Santa Clara and San Jose are warmer in summer)",
        "country": "US",
        "file": "USA_CA_San.Francisco.Intl.AP.724940_TMYx.2009-2023.epw",
        "repo": "PEESEgroup/AI-Data-Center-Analysis",
        "path": "Data/weather/USA_CA_San.Francisco.Intl.AP.724940_TMYx.2009-2023.epw",
        "commit": "4bcaea42c33d90c4a6039cf486b7b824db79529e",
        "blob": "117dd9fb175e038967196476c40b899c2784812d",
        "dataset": "TMYx 2009-2023 (climate.onebuilding.org, from NCEI ISD hourly with ERA5 gap filling), typical months from 2009-2023",
        "as_of": "2023-12-31",
    },
    {
        "id": "des-moines-ia",
        "name": "Des Moines Intl AP, Iowa, USA",
        "region": "Central Iowa (Des Moines, West Des Moines, Altoona)",
        "country": "US",
        "file": "USA_IA_Des.Moines.Intl.AP.725460_TMYx.2009-2023.epw",
        "repo": "PEESEgroup/AI-Data-Center-Analysis",
        "path": "Data/weather/USA_IA_Des.Moines.Intl.AP.725460_TMYx.2009-2023.epw",
        "commit": "4bcaea42c33d90c4a6039cf486b7b824db79529e",
        "blob": "245d6026912b7a0431bc91c37e34eae50677b598",
        "dataset": "TMYx 2009-2023 (climate.onebuilding.org, from NCEI ISD hourly with ERA5 gap filling), typical months from 2009-2023",
        "as_of": "2023-12-31",
    },
    {
        "id": "omaha-ne",
        "name": "Omaha Eppley Airfield, Nebraska, USA (for Council Bluffs, Iowa)",
        "region": "Omaha and Council Bluffs, Iowa (Eppley Airfield is about 10 km from Council Bluffs)",
        "country": "US",
        "file": "USA_NE_Omaha-Eppley.AF.Intl.AP.725500_TMYx.2009-2023.epw",
        "repo": "PEESEgroup/AI-Data-Center-Analysis",
        "path": "Data/weather/USA_NE_Omaha-Eppley.AF.Intl.AP.725500_TMYx.2009-2023.epw",
        "commit": "4bcaea42c33d90c4a6039cf486b7b824db79529e",
        "blob": "03dfd0222fc38b8d42ca4fce2ce62a0e235a4fe5",
        "dataset": "TMYx 2009-2023 (climate.onebuilding.org, from NCEI ISD hourly with ERA5 gap filling), typical months from 2009-2023",
        "as_of": "2023-12-31",
    },
    {
        "id": "new-york-ny",
        "name": "New York John F. Kennedy Intl AP, New York, USA",
        "region": "New York and northern New Jersey",
        "country": "US",
        "file": "USA_NY_New.York-Kennedy.Intl.AP.744860_TMYx.2009-2023.epw",
        "repo": "PEESEgroup/AI-Data-Center-Analysis",
        "path": "Data/weather/USA_NY_New.York-Kennedy.Intl.AP.744860_TMYx.2009-2023.epw",
        "commit": "4bcaea42c33d90c4a6039cf486b7b824db79529e",
        "blob": "ab8a687a5448f0d956326504ddaa782f0ff19210",
        "dataset": "TMYx 2009-2023 (climate.onebuilding.org, from NCEI ISD hourly with ERA5 gap filling), typical months from 2009-2023",
        "as_of": "2023-12-31",
    },
    {
        "id": "dublin-ie",
        "name": "Dublin Airport, Ireland",
        "region": "Dublin (Clonshaugh, Grange Castle, Clondalkin)",
        "country": "IE",
        "file": "IRL_Dublin.039690_IWEC.epw",
        "repo": "codema-dev/berpublicsearch_rc",
        "path": "IRL_Dublin.039690_IWEC.epw",
        "commit": "364f6772f7141019319f975bf60565a242fae2d3",
        "blob": "c1ee85a50326e112e645fe5b2acdd2402c4cdbba",
        "dataset": "IWEC (ASHRAE International Weather for Energy Calculations, 2001), typical months from 1982-1999",
        "as_of": "1999-12-31",
    },
    {
        "id": "stockholm-se",
        "name": "Stockholm Arlanda AP, Sweden",
        "region": "Stockholm",
        "country": "SE",
        "file": "SWE_Stockholm.Arlanda.024600_IWEC.epw",
        "repo": "ugr-sail/sinergym",
        "path": "sinergym/data/weather/SWE_Stockholm.Arlanda.024600_IWEC.epw",
        "commit": "f92ac94ecb9881e6a834f6b79853b5020ab19add",
        "blob": "c59831e3413457f018588b658050a6787b0c383c",
        "dataset": "IWEC (ASHRAE International Weather for Energy Calculations, 2001), typical months from 1982-1999",
        "as_of": "1999-12-31",
    },
    {
        "id": "lulea-se",
        "name": "Lulea Airport, Sweden",
        "region": "Lulea, Norrbotten",
        "country": "SE",
        "file": "SWE_NB_Lulea.AP.021860_TMYx.2009-2023.epw",
        "repo": "PEESEgroup/AI-Data-Center-Analysis",
        "path": "Data/weather/SWE_NB_Lulea.AP.021860_TMYx.2009-2023.epw",
        "commit": "4bcaea42c33d90c4a6039cf486b7b824db79529e",
        "blob": "0780a57e274be71000cd80b659276d483d06c93f",
        "dataset": "TMYx 2009-2023 (climate.onebuilding.org, from NCEI ISD hourly with ERA5 gap filling), typical months from 2009-2023",
        "as_of": "2023-12-31",
    },
    {
        "id": "frankfurt-de",
        "name": "Frankfurt am Main Airport, Germany",
        "region": "Frankfurt am Main",
        "country": "DE",
        "file": "DEU_HE_Frankfurt.AP.106370_TMYx.2009-2023.epw",
        "repo": "PEESEgroup/AI-Data-Center-Analysis",
        "path": "Data/weather/DEU_HE_Frankfurt.AP.106370_TMYx.2009-2023.epw",
        "commit": "4bcaea42c33d90c4a6039cf486b7b824db79529e",
        "blob": "4a0ee180fe38ad29784ecd100926fbf1e9f6aead",
        "dataset": "TMYx 2009-2023 (climate.onebuilding.org, from NCEI ISD hourly with ERA5 gap filling), typical months from 2009-2023",
        "as_of": "2023-12-31",
    },
    {
        "id": "singapore-sg",
        "name": "Singapore Changi Intl AP, Singapore",
        "region": "Singapore",
        "country": "SG",
        "file": "SGP_Singapore.486980_IWEC.epw",
        "repo": "architecture-building-systems/ASF_Simulation",
        "path": "WeatherData/SGP_Singapore.486980_IWEC.epw",
        "commit": "8cabb20da689f61891966dfa5d15cc82771050d3",
        "blob": "4b58926f4e7225fd908d565f79a30fbf5fe41399",
        "dataset": "IWEC (ASHRAE International Weather for Energy Calculations, 2001), typical months from 1982-1999",
        "as_of": "1999-12-31",
        "note": "IWEC rather than TMYx 2009-2023: the TMYx file's dew points reach 29.9 degC and its hourly 99.6% wet bulb is 1.7 K above the ASHRAE 0.4% design value; same hourly values as SGP_Singapore.486980_IWEC.epw in hopezh/test_ladybug_pandas",
    },
    {
        "id": "tokyo-jp",
        "name": "Hyakuri Air Base, Ibaraki, Japan (the IWEC station for Tokyo)",
        "region": "Tokyo area (stand-in station about 80 km north-east of central Tokyo, on the coast of Ibaraki)",
        "country": "JP",
        "file": "JPN_Tokyo.Hyakuri.477150_IWEC.epw",
        "repo": "ugr-sail/sinergym",
        "path": "sinergym/data/weather/JPN_Tokyo.Hyakuri.477150_IWEC.epw",
        "commit": "f92ac94ecb9881e6a834f6b79853b5020ab19add",
        "blob": "b8d8fc39d8d8a10d404bbf66cb844a9cf98af48d",
        "dataset": "IWEC (ASHRAE International Weather for Energy Calculations, 2001), typical months from 1982-1999",
        "as_of": "1999-12-31",
        "note": "Hyakuri runs about 2-3 K cooler than central Tokyo (13.1 degC annual against a 1991-2020 normal of 15.8 degC at Tokyo); no central Tokyo station file was found",
    },
    {
        "id": "sydney-au",
        "name": "Sydney (Kingsford Smith) Intl AP, New South Wales, Australia",
        "region": "Sydney",
        "country": "AU",
        "file": "AUS_NSW.Sydney.947670_IWEC.epw",
        "repo": "ugr-sail/sinergym",
        "path": "sinergym/data/weather/AUS_NSW.Sydney.947670_IWEC.epw",
        "commit": "f92ac94ecb9881e6a834f6b79853b5020ab19add",
        "blob": "51a38451bcf45254f42c37a01b616ca1f8dee7fb",
        "dataset": "IWEC (ASHRAE International Weather for Energy Calculations, 2001), typical months from 1982-1999",
        "as_of": "1999-12-31",
        "note": "IWEC rather than TMYx 2009-2023: the TMYx file's hourly 99.6% wet bulb is 2.3 K above the ASHRAE 0.4% design value",
    },
]

# Other files read only for the cross-checks in README.md (--compare).
ALTERNATES = [
    ("ashburn-va", "USA_VA_Sterling-Washington.Dulles.Intl.AP.724030_TMY3.epw", "c8c40e63a23ede60036bd7507f478b7d034cd9f0", "TMY3 1976-2005"),
    ("phoenix-az", "USA_AZ_Phoenix-Sky.Harbor.Intl.AP.722780_TMYx.2009-2023.epw", "7f1b1783a3c998dd890135bc96cd65883efdc282", "TMYx 2009-2023"),
    ("san-francisco-ca", "USA_CA_San.Francisco.Intl.AP.724940_TMY3.epw", "4784665a16cd4db18ee4b61925be8e0f0cc34015", "TMY3 1976-2005"),
    ("frankfurt-de", "DEU_Frankfurt.am.Main.106370_IWEC.epw", "c932e6a67454f37a155c686be6fa54db1a10267a", "IWEC 1982-1999"),
    ("singapore-sg", "SGP_SG_Singapore-Changi.Intl.AP.486980_TMYx.2009-2023.epw", "11de89a5c9e020bdce7257308560a4382ee0d980", "TMYx 2009-2023"),
    ("sydney-au", "AUS_NSW_Sydney.Intl.AP.947670_TMYx.2009-2023.epw", "53b1cb69f15fd46f7051aaa1dda8403fa14443a9", "TMYx 2009-2023"),
]

BIN_START = -40  # degC; bin i covers [BIN_START + i, BIN_START + i + 1)
BIN_COUNT = 90   # up to +50 degC
DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

WET_BULB_CITATION = (
    "wet-bulb: thermodynamic wet-bulb temperature solved by bisection from ASHRAE Handbook - "
    "Fundamentals (2017) SI ch. 1, eq. 5 and 6 (saturation pressure over ice and water), "
    "eq. 20/22 (humidity ratio), eq. 37/38 (vapour pressure at the dew point) and eq. 33/35 "
    "(wet-bulb relation above and below freezing), with the EPW hourly dry bulb, dew point and station pressure"
)

# ----------------------------------------------------------------------------
# Psychrometrics, ASHRAE Handbook - Fundamentals 2017 (SI), chapter 1.
# Temperatures in degC, pressures in kPa, humidity ratio in kg/kg dry air.
# ----------------------------------------------------------------------------


def pws(t):
    """Saturation pressure of water vapour, kPa: over ice below 0 degC (eq. 5), over water above (eq. 6)."""
    T = t + 273.15
    if t < 0.0:
        ln = (-5.6745359e3 / T + 6.3925247 - 9.6778430e-3 * T + 6.2215701e-7 * T * T
              + 2.0747825e-9 * T ** 3 - 9.4840240e-13 * T ** 4 + 4.1635019 * math.log(T))
    else:
        ln = (-5.8002206e3 / T + 1.3914993 - 4.8640239e-2 * T + 4.1764768e-5 * T * T
              - 1.4452093e-8 * T ** 3 + 6.5459673 * math.log(T))
    return math.exp(ln) / 1000.0  # Pa -> kPa


def humidity_ratio(pw, p):
    """Eq. 20/22: W = 0.621945 pw / (p - pw)."""
    return 0.621945 * pw / (p - pw)


def w_from_wet_bulb(t, tstar, p):
    """Humidity ratio of air at dry bulb t whose thermodynamic wet bulb is tstar (eq. 33 or 35)."""
    ws = humidity_ratio(pws(tstar), p)
    if tstar >= 0.0:
        return ((2501.0 - 2.326 * tstar) * ws - 1.006 * (t - tstar)) / (2501.0 + 1.86 * t - 4.186 * tstar)
    return ((2830.0 - 0.24 * tstar) * ws - 1.006 * (t - tstar)) / (2830.0 + 1.86 * t - 2.1 * tstar)


def wet_bulb(t, w, p, tol=1e-6):
    """Thermodynamic wet-bulb temperature, degC, for dry bulb t, humidity ratio w, pressure p (kPa).

    On each side of 0 degC w_from_wet_bulb rises monotonically with t*, but it drops at 0 degC where
    eq. 33 (liquid water) hands over to eq. 35 (ice).  For a band of humidity ratios both branches
    then have a root, about 0.2-0.6 K apart.  The liquid-water root (t* >= 0) is taken whenever it
    exists, as for a wetted wick or an evaporative cooler; the ice root only when it does not."""
    if w_from_wet_bulb(t, t, p) <= w:  # saturated (or supersaturated by rounding)
        return t
    if t >= 0.0 and w_from_wet_bulb(t, 0.0, p) <= w:
        lo, hi = 0.0, t            # liquid-water branch, eq. 33
    else:
        hi = min(t, 0.0)           # ice branch, eq. 35 (values just below 0)
        lo = hi - 60.0
        while w_from_wet_bulb(t, lo, p) > w:
            lo -= 20.0
        hi = hi - 1e-12 if hi == 0.0 else hi
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if w_from_wet_bulb(t, mid, p) > w:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


def standard_pressure(z):
    """Eq. 3: standard atmospheric pressure, kPa, at elevation z (m)."""
    return 101.325 * (1.0 - 2.25577e-5 * z) ** 5.2559


def selftest():
    ok = True

    def check(label, got, want, tol):
        nonlocal ok
        good = abs(got - want) <= tol
        ok = ok and good
        print(f"{'ok  ' if good else 'FAIL'} {label}: {got:.6g} (expected {want} +/- {tol})")

    # Saturation pressures against IAPWS reference values (Wagner and Pruss; ice: Wagner et al. 2011).
    # The Hyland-Wexler fits of eq. 5/6 agree to within about 0.03% in this range.
    check("pws(-20 degC, ice) kPa", pws(-20.0), 0.10326, 0.10326 * 5e-4)
    check("pws(0 degC, water) kPa", pws(0.0), 0.61121, 0.61121 * 5e-4)
    check("pws(20 degC) kPa", pws(20.0), 2.3393, 2.3393 * 5e-4)
    check("pws(40 degC) kPa", pws(40.0), 7.3849, 7.3849 * 5e-4)
    # 40 degC dry bulb, 20 degC thermodynamic wet bulb, 101.325 kPa: the psychrometric chart reads about
    # 6.4 g/kg (eq. 33 with Ws* = 0.621945 * 2.3389 / (101.325 - 2.3389) = 0.014696 gives 0.006401).
    w = w_from_wet_bulb(40.0, 20.0, 101.325)
    check("W at 40/20 degC", w, 0.006401, 0.000005)
    check("wet bulb back from that W", wet_bulb(40.0, w, 101.325), 20.0, 1e-4)
    # Saturated air: wet bulb = dry bulb = dew point.
    p = 101.325
    check("saturated 25 degC", wet_bulb(25.0, humidity_ratio(pws(25.0), p), p), 25.0, 1e-4)
    check("saturated -10 degC", wet_bulb(-10.0, humidity_ratio(pws(-10.0), p), p), -10.0, 1e-4)
    # Chart points at sea level: 30 degC / 50% RH -> about 22.0 degC; 20 degC / 50% RH -> about 13.7 degC
    # (Stull 2011 quotes 13.7 degC for the latter).
    check("30 degC 50% RH", wet_bulb(30.0, humidity_ratio(0.5 * pws(30.0), p), p), 22.0, 0.1)
    check("20 degC 50% RH", wet_bulb(20.0, humidity_ratio(0.5 * pws(20.0), p), p), 13.7, 0.15)
    # Lower pressure raises the wet-bulb depression: same W at 84 kPa gives a lower t*.
    t_low = wet_bulb(30.0, humidity_ratio(0.5 * pws(30.0), p), 84.0)
    check("30 degC same W at 84 kPa below sea-level value", float(t_low < 22.0), 1.0, 0.0)
    # Near 0 degC both branches can have a root: 5.7 degC dry bulb, -10 degC dew point, 101.089 kPa has
    # t* = 0.18 degC (liquid, eq. 33) and -0.22 degC (ice, eq. 35); the liquid root is the one returned.
    w0 = humidity_ratio(pws(-10.0), 101.089)
    check("liquid root preferred near 0 degC", wet_bulb(5.7, w0, 101.089), 0.176, 0.01)
    # Well below freezing only the ice branch applies: -15 degC dry bulb, -20 degC frost point.
    w1 = humidity_ratio(pws(-20.0), 101.325)
    tw1 = wet_bulb(-15.0, w1, 101.325)
    check("ice branch residual", w_from_wet_bulb(-15.0, tw1, 101.325) - w1, 0.0, 1e-9)
    return ok


# ----------------------------------------------------------------------------
# EPW reading
# ----------------------------------------------------------------------------


def git_blob_id(data):
    h = hashlib.sha1()
    h.update(b"blob %d\0" % len(data))
    h.update(data)
    return h.hexdigest()


def read_epw(path, expect_blob=None):
    with open(path, "rb") as f:
        raw = f.read()
    blob = git_blob_id(raw)
    if expect_blob and blob != expect_blob:
        raise SystemExit(f"{path}: git blob {blob} is not the expected {expect_blob}")
    lines = raw.decode("latin-1").splitlines()
    loc = lines[0].split(",")
    if loc[0] != "LOCATION":
        raise SystemExit(f"{path}: first line is not a LOCATION record")
    header = {
        "location_line": lines[0].strip(),
        "city": loc[1], "state": loc[2], "country": loc[3], "source": loc[4], "wmo": loc[5],
        "latitude": float(loc[6]), "longitude": float(loc[7]), "tz": float(loc[8]), "elevation": float(loc[9]),
        "comments1": next((l for l in lines[:8] if l.startswith("COMMENTS 1")), ""),
        "design_wb04": None,
    }
    # ASHRAE design conditions in the header: after "Cooling" come hottest month, daily range,
    # 0.4% DB/MCWB, 1% DB/MCWB, 2% DB/MCWB, then the 0.4% evaporation wet bulb.
    design = next((l.split(",") for l in lines[:8] if l.startswith("DESIGN CONDITIONS")), [])
    if "Cooling" in design:
        try:
            header["design_wb04"] = float(design[design.index("Cooling") + 9])
        except (IndexError, ValueError):
            pass
    start = next(i for i, l in enumerate(lines) if l.startswith("DATA PERIODS")) + 1
    rows = []
    for l in lines[start:]:
        if not l.strip():
            continue
        f = l.split(",")
        rows.append({
            "month": int(f[1]), "day": int(f[2]), "hour": int(f[3]),
            "dry": float(f[6]), "dew": float(f[7]), "rh": float(f[8]), "p": float(f[9]),
        })
    return header, rows, blob


# ----------------------------------------------------------------------------
# Derivation
# ----------------------------------------------------------------------------


def bin_index(t):
    i = math.floor(t - BIN_START)
    return min(max(i, 0), BIN_COUNT - 1)


def derive(header, rows):
    if len(rows) != 8760:
        raise SystemExit(f"{len(rows)} hourly rows, expected 8760")
    p_std = standard_pressure(header["elevation"])
    months = []
    for m in range(1, 13):
        months.append({"month": m, "hours": 0, "dry_sum": 0.0, "wet_sum": 0.0, "dew_sum": 0.0,
                       "dry_hist": [0] * BIN_COUNT, "wet_hist": [0] * BIN_COUNT})
    issues = {"pressure_filled": 0, "dew_from_rh": 0, "dew_above_dry": 0, "clamped": 0}
    wet_all = []
    for r in rows:
        t = r["dry"]
        if t >= 99.9:
            raise SystemExit(f"missing dry bulb at month {r['month']} day {r['day']} hour {r['hour']}")
        p = r["p"] / 1000.0
        if r["p"] >= 999999 or not (30.0 < p < 120.0):
            p = p_std
            issues["pressure_filled"] += 1
        td = r["dew"]
        if td >= 99.9:
            if r["rh"] > 100.0:
                raise SystemExit(f"missing dew point and RH at month {r['month']} day {r['day']} hour {r['hour']}")
            pw = r["rh"] / 100.0 * pws(t)
            issues["dew_from_rh"] += 1
            # Dew point for the monthly mean: invert pws by bisection.
            lo, hi = -90.0, t
            while hi - lo > 1e-6:
                mid = 0.5 * (lo + hi)
                if pws(mid) > pw:
                    hi = mid
                else:
                    lo = mid
            td = 0.5 * (lo + hi)
        else:
            if td > t:
                issues["dew_above_dry"] += 1  # reporting noise; treat as saturated
                td = t
            pw = pws(td)
        w = humidity_ratio(pw, p)
        tw = wet_bulb(t, w, p)
        wet_all.append(tw)
        mo = months[r["month"] - 1]
        mo["hours"] += 1
        mo["dry_sum"] += t
        mo["wet_sum"] += tw
        mo["dew_sum"] += td
        for key, val in (("dry_hist", t), ("wet_hist", tw)):
            if val < BIN_START or val >= BIN_START + BIN_COUNT:
                issues["clamped"] += 1
            mo[key][bin_index(val)] += 1
    # Checks.
    total = 0
    for mo in months:
        want = DAYS[mo["month"] - 1] * 24
        if mo["hours"] != want:
            raise SystemExit(f"month {mo['month']}: {mo['hours']} hours, expected {want}")
        for key in ("dry_hist", "wet_hist"):
            if sum(mo[key]) != mo["hours"]:
                raise SystemExit(f"month {mo['month']}: {key} sums to {sum(mo[key])}, not {mo['hours']}")
        total += mo["hours"]
    if total != 8760:
        raise SystemExit(f"months sum to {total} hours")
    ranked = sorted(wet_all)
    annual = {
        "dry": sum(r["dry"] for r in rows) / 8760.0,
        "wet": sum(wet_all) / 8760.0,
        "wet_p996": ranked[int(0.996 * 8760)],  # wet bulb exceeded 0.4% of the hours
    }
    return months, annual, issues


# ----------------------------------------------------------------------------
# TOML output
# ----------------------------------------------------------------------------


def fmt_t(x):
    s = f"{x:.1f}"
    if s == "-0.0":
        s = "0.0"
    return f'"{s} degC"'


def toml_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render(site, header, months, annual, issues):
    lat, lon = header["latitude"], header["longitude"]
    elev = header["elevation"]
    elev_s = f"{elev:.0f}" if abs(elev - round(elev)) < 0.05 else f"{elev:.1f}"
    src_file = (f"{site['dataset'].split(' (')[0]} file {site['file']}, from github.com/{site['repo']} "
                f"{site['path']} at commit {site['commit']} (git blob {site['blob'][:12]}); "
                f"EPW header: {header['location_line']}")
    # Data-quality remarks go into the sources (the file keeps the agreed key set; the station's
    # region and caveats are in README.md).
    notes = []
    if issues["pressure_filled"]:
        notes.append(f"{issues['pressure_filled']} hours without station pressure used the standard atmosphere at the station elevation")
    if issues["dew_from_rh"]:
        notes.append(f"{issues['dew_from_rh']} hours without a dew point used the relative humidity field")
    if issues["dew_above_dry"]:
        notes.append(f"{issues['dew_above_dry']} hours with a dew point above the dry bulb were taken as saturated")
    if issues["clamped"]:
        notes.append(f"{issues['clamped']} hour-values outside -40..+50 degC were counted in the end bins")
    sources = [src_file, WET_BULB_CITATION] + [f"data handling: {n}" for n in notes]
    out = []
    out.append(f"id = {toml_str(site['id'])}")
    out.append(f"name = {toml_str(site['name'])}")
    out.append('kind = "climate"')
    out.append(f"country = {toml_str(site['country'])}")
    out.append(f'station = "WMO {header["wmo"]}"')
    out.append(f'latitude = {{ value = {lat:.2f}, note = "degrees north" }}')
    out.append(f'longitude = {{ value = {lon:.2f}, note = "degrees east" }}')
    out.append(f'elevation = "{elev_s} m"')
    out.append(f"dataset = {toml_str(site['dataset'])}")
    out.append(f"annual_dry_bulb_mean = {fmt_t(annual['dry'])}")
    out.append(f"annual_wet_bulb_mean = {fmt_t(annual['wet'])}")
    out.append("")
    out.append("[bins]")
    out.append(f'start = "{BIN_START} degC"')
    out.append('width = "1 K"')
    out.append(f"count = {BIN_COUNT}")
    for mo in months:
        h = mo["hours"]
        out.append("")
        out.append("[[month]]")
        out.append(f"month = {mo['month']}")
        out.append(f"hours = {h}")
        out.append(f"dry_bulb_mean = {fmt_t(mo['dry_sum'] / h)}")
        out.append(f"wet_bulb_mean = {fmt_t(mo['wet_sum'] / h)}")
        out.append(f"dew_point_mean = {fmt_t(mo['dew_sum'] / h)}")
        out.append("dry_bulb_hours = [" + ", ".join(str(v) for v in mo["dry_hist"]) + "]")
        out.append("wet_bulb_hours = [" + ", ".join(str(v) for v in mo["wet_hist"]) + "]")
    out.append("")
    out.append("[meta]")
    out.append(f"as_of = {site['as_of']}")
    out.append("sources = [")
    for s in sources:
        out.append(f"  {toml_str(s)},")
    out.append("]")
    out.append('basis = "derived"')
    return "\n".join(out) + "\n"


def summary_line(site_id, label, header, months, annual):
    """One line per file; the last columns compare the wet bulb exceeded 0.4% of the hours with the
    ASHRAE 0.4% evaporation design wet bulb in the EPW header (a check on the humidity data)."""
    mo = {m["month"]: m for m in months}
    jan, jul = mo[1], mo[7]
    d = header["design_wb04"]
    tail = f"WB0.4% {annual['wet_p996']:5.1f} vs ASHRAE {d:5.1f}" if d is not None else "no design data"
    flag = "  <-- humid tail" if d is not None and annual["wet_p996"] - d > 1.0 else ""
    return (f"{site_id:17s} {label:15s} year DB {annual['dry']:5.1f} WB {annual['wet']:5.1f} | "
            f"Jan DB {jan['dry_sum'] / jan['hours']:5.1f} WB {jan['wet_sum'] / jan['hours']:5.1f} | "
            f"Jul DB {jul['dry_sum'] / jul['hours']:5.1f} WB {jul['wet_sum'] / jul['hours']:5.1f} | {tail}{flag}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--epw-dir", help="folder holding the EPW files named in SITES")
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)), help="where to write <id>.toml")
    ap.add_argument("--site", action="append", help="only this site id (repeatable)")
    ap.add_argument("--selftest", action="store_true", help="check the psychrometric functions and exit")
    ap.add_argument("--compare", action="store_true", help="also summarise the alternate files (no output written for them)")
    args = ap.parse_args()
    if args.selftest:
        sys.exit(0 if selftest() else 1)
    if not args.epw_dir:
        ap.error("--epw-dir is required")
    import contextlib
    import io
    with contextlib.redirect_stdout(io.StringIO()) as buf:
        passed = selftest()
    if not passed:
        print(buf.getvalue())
        raise SystemExit("psychrometric self-test failed")
    for site in SITES:
        if args.site and site["id"] not in args.site:
            continue
        header, rows, _ = read_epw(os.path.join(args.epw_dir, site["file"]), site["blob"])
        months, annual, issues = derive(header, rows)
        text = render(site, header, months, annual, issues)
        with open(os.path.join(args.out, site["id"] + ".toml"), "w", encoding="utf-8") as f:
            f.write(text)
        print(summary_line(site["id"], site["dataset"].split(" (")[0].split(",")[0], header, months, annual))
        if any(issues.values()):
            print("    ", issues)
    if args.compare:
        for site_id, fname, blob, label in ALTERNATES:
            header, rows, _ = read_epw(os.path.join(args.epw_dir, fname), blob)
            months, annual, issues = derive(header, rows)
            print(summary_line(site_id, label + " (alt)", header, months, annual))


if __name__ == "__main__":
    main()
