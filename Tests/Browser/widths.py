"""The journey's screens at a phone's 375 px and at 1440 px (imported by journey.py)."""
import re

from selenium.webdriver.common.by import By

# Chart text and body text sizes, bars' colours and right edges, the chart's width.
CHART_JS = """
    const body = parseFloat(getComputedStyle(document.body).fontSize);
    const texts = [...document.querySelectorAll('.chart span')].map(e => e.getBoundingClientRect().height);
    const sizes = [...document.querySelectorAll('.chart span')].map(e => parseFloat(getComputedStyle(e).fontSize));
    const bars = [...document.querySelectorAll('.chart rect.bar')];
    const chart = document.querySelector('.chart').getBoundingClientRect();
    return {body: body, lineHeight: parseFloat(getComputedStyle(document.body).lineHeight) || body * 1.5,
            sizes: sizes, heights: texts, fills: bars.map(b => getComputedStyle(b).fill),
            right: Math.max(...bars.map(b => b.getBoundingClientRect().right)), chartRight: chart.right};
"""


# WCAG's contrast ratio of two CSS colours, `ratio(a, b)`: the journey's checks start with it.
CONTRAST_JS = """
    const rgb = c => c.match(/\\d+(\\.\\d+)?/g).slice(0, 3).map(Number);
    const lum = c => { const [r, g, b] = rgb(c).map(v => { v /= 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
    const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
"""

# The lowest contrast of the chart's bars against the page (WCAG's 3:1 for graphics).
BAR_CONTRAST_JS = CONTRAST_JS + """
    const bg = getComputedStyle(document.body).backgroundColor;
    return Math.min(...[...document.querySelectorAll('.chart rect.bar')].map(b => ratio(getComputedStyle(b).fill, bg)));
"""


def bar_contrast(driver, base, check, mode):
    driver.get(base + "/app/stats")
    lowest = driver.execute_script(BAR_CONTRAST_JS)
    check(f"the chart's bars stand out in {mode} mode (lowest {lowest:.1f}:1, at least 3:1)", lowest >= 3)


def phone_and_desktop(driver, base, check, shot, no_sideways_scroll, suffix):
    """The list, a detail page, the statistics and the Offline page at a phone's 375 px (the
    device-metrics override: a headless window is at least 500 px wide) and at 1440 px."""
    for width, height, mobile in ((375, 800, True), (1440, 1000, False)):
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
        where = f"{width} px{suffix}"
        driver.get(base + "/app/characters")
        no_sideways_scroll(f"/app/characters at {where}")
        if mobile:
            seen = driver.execute_script(
                "return [...document.querySelectorAll('a.card')]"
                ".filter(c => c.getBoundingClientRect().bottom <= window.innerHeight).length")
            # The banner of the upstreams down takes about two cards' height.
            least = 4 if suffix else 6
            check(f"characters at {where}: compact cards, {seen} whole in the first screen (at least {least})",
                  seen >= least)
            check(f"characters at {where}: the filters folded into their line",
                  driver.execute_script("return !document.querySelector('details.filter-panel').open"))
            # For the record: the same screen without the phone's compact rule (as before issue 38).
            before = driver.execute_script("""
                const sheet = [...document.styleSheets].find(s => s.href && s.href.includes('app.css'));
                const rules = [...sheet.cssRules];
                for (let i = rules.length - 1; i >= 0; i--) {
                  if (rules[i].media && rules[i].cssText.includes('.card img')) sheet.deleteRule(i);
                }
                return [...document.querySelectorAll('a.card')]
                  .filter(c => c.getBoundingClientRect().top < window.innerHeight).length;""")
            print(f"info cards at least partly in the first screen without the compact rule: {before}")
            driver.refresh()
            cut = driver.execute_script(
                "return [...document.querySelectorAll('.card .title')]"
                ".filter(t => t.scrollWidth > t.clientWidth + 1).map(t => t.textContent)")
            check(f"characters at {where}: every name whole ({cut or 'none cut'})", not cut)
        else:
            check(f"characters at {where}: the filters open",
                  driver.execute_script("return document.querySelector('details.filter-panel').open"))
        shot(f"characters-{width}{suffix}.png")
        driver.get(base + "/app/characters/1")
        no_sideways_scroll(f"/app/characters/1 at {where}")
        created = driver.find_elements(By.CSS_SELECTOR, "dd time[datetime]")
        check(f"a character's Created is a readable <time> at {where} "
              f"({created[0].text if created else 'none'})",
              created and re.fullmatch(r"\d{1,2} \w{3} 2017, \d\d:\d\d \S+", created[0].text)
              and created[0].get_attribute("title") == created[0].get_attribute("datetime"))
        shot(f"character-{width}{suffix}.png")
        driver.get(base + "/app/stats")
        no_sideways_scroll(f"/app/stats at {where}")
        chart = driver.execute_script(CHART_JS)
        check(f"the chart's text at {where} is body size or smaller ({max(chart['sizes'])} px, body "
              f"{chart['body']} px; lines {max(chart['heights']):.0f} px)",
              max(chart["sizes"]) <= chart["body"] and max(chart["heights"]) <= chart["lineHeight"] + 1)
        check(f"the chart's bars at {where}: a colour per status ({chart['fills']})",
              len(chart["fills"]) == 3 and len(set(chart["fills"])) == 3)
        check(f"the chart's bars fit at {where} (right edge {chart['right']:.0f} ≤ {chart['chartRight']:.0f})",
              chart["right"] <= chart["chartRight"] + 1)
        shot(f"stats-{width}{suffix}.png")
        if not suffix:
            bar_contrast(driver, base, check, "light")
            driver.get(base + "/app/universities?country=Atlantis")
            check(f"an unknown country says why at {where}",
                  'No universities in "Atlantis": the upstream matches whole country names in English' in
                  driver.find_element(By.TAG_NAME, "main").text)
            no_sideways_scroll(f"/app/universities?country=Atlantis at {where}")
            shot(f"universities-atlantis-{width}.png")
        driver.get(base + "/app/offline")
        no_sideways_scroll(f"/app/offline at {where}")
        shot(f"offline-{width}{suffix}.png")
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
