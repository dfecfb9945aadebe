// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/finetune/run_curves.h"
#include "widgets/finetune/json_fields.h"

#include "widgets/finetune/run_watcher.h"

#include <qcustomplot.h>

#include <QEvent>
#include <QGridLayout>
#include <QLabel>
#include <QTimer>
#include <QVBoxLayout>

#include <nlohmann/json.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>

namespace dice {

namespace {

using Json = nlohmann::json;

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

double number(const Json& line, const char* key) {
    return runjson::number(line, key, kNone);
}

QCPGraph* addSeries(QCustomPlot* plot, const QColor& color, Qt::PenStyle style,
                    const QVector<double>& keys, const QVector<double>& values) {
    QCPGraph* graph = plot->addGraph();
    graph->setPen(QPen(color, 1.6, style));
    graph->setData(keys, values, true);
    if (keys.size() == 1)
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
    return graph;
}

// One metric of every step, NaN where the step did not write it.
void series(const std::vector<Json>& metrics, const std::function<double(const Json&)>& value,
            QVector<double>& keys, QVector<double>& values) {
    keys.clear();
    values.clear();
    for (const Json& m : metrics) {
        const double step = number(m, "step");
        const double v = value(m);
        if (std::isfinite(step) && std::isfinite(v)) {
            keys << step;
            values << v;
        }
    }
}

void mark(QCustomPlot* plot, double step, const QColor& color, Qt::PenStyle style) {
    auto* line = new QCPItemStraightLine(plot);
    line->setPen(QPen(color, 1, style));
    line->point1->setCoords(step, 0);
    line->point2->setCoords(step, 1);
}

} // namespace

RunCurves::RunCurves(QWidget* parent)
    : QWidget(parent)
    , m_key(new QLabel(this)) {
    m_key->setTextFormat(Qt::RichText);
    m_key->setWordWrap(true);
    m_key->setObjectName(QStringLiteral("RunKey"));
    auto* grid = new QGridLayout;
    grid->setSpacing(4);
    for (int c = 0; c < CurveCount; ++c) {
        auto* plot = new QCustomPlot(this);
        plot->setMinimumSize(140, 110);
        plot->plotLayout()->insertRow(0);
        plot->plotLayout()->addElement(0, 0, new QCPTextElement(plot, QString(), 9));
        plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
        // Ten small plots redrawn at every step: without antialiasing each costs a few
        // milliseconds of the GUI thread instead of several times that.
        plot->setNotAntialiasedElements(QCP::aeAll);
        plot->xAxis->setTickLabelFont(QFont(font().family(), 7));
        plot->yAxis->setTickLabelFont(QFont(font().family(), 7));
        m_plots[c] = plot;
        grid->addWidget(plot, c / 5, c % 5);
    }
    // One plot per turn of the event loop, so that redrawing them all never holds it for long.
    m_replot = new QTimer(this);
    m_replot->setInterval(0);
    connect(m_replot, &QTimer::timeout, this, [this] {
        if (m_dirty.isEmpty()) {
            m_replot->stop();
            return;
        }
        m_dirty.takeFirst()->replot(QCustomPlot::rpImmediateRefresh);
    });
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_key);
    layout->addLayout(grid, 1);
    retranslate();
}

void RunCurves::setRuns(const QList<RunWatcher*>& runs) {
    m_runs.clear();
    for (RunWatcher* run : runs)
        m_runs << run;
    refresh();
}

void RunCurves::refresh() {
    for (QCustomPlot* plot : m_plots) {
        plot->clearGraphs();
        plot->clearItems();
    }
    m_phaseMarks.clear();
    QStringList key;
    QVector<double> keys, values;
    bool first = true;
    for (const auto& run : m_runs) {
        if (!run)
            continue;
        const QColor color = run->color();
        key << QStringLiteral("<span style=\"color:%1\">&#9632;</span> %2")
                   .arg(color.name(), run->name().toHtmlEscaped());
        const auto& metrics = run->run().metrics();
        const auto simple = [&](Curve curve, const std::function<double(const Json&)>& value) {
            series(metrics, value, keys, values);
            addSeries(m_plots[curve], color, Qt::SolidLine, keys, values);
        };

        // The mean with a band of one standard deviation either side.
        series(
            metrics, [](const Json& m) { return number(m, "mean_reward"); }, keys, values);
        QVector<double> upper, lower;
        for (const Json& m : metrics) {
            const double mean = number(m, "mean_reward");
            const double spread = number(m, "reward_std");
            if (std::isfinite(number(m, "step")) && std::isfinite(mean) && std::isfinite(spread)) {
                upper << mean + spread;
                lower << mean - spread;
            }
        }
        addSeries(m_plots[Reward], color, Qt::SolidLine, keys, values);
        if (upper.size() == keys.size() && !keys.isEmpty()) {
            QColor band = color;
            band.setAlpha(50);
            QCPGraph* high = addSeries(m_plots[Reward], band, Qt::NoPen, keys, upper);
            QCPGraph* low = addSeries(m_plots[Reward], band, Qt::NoPen, keys, lower);
            high->setBrush(band);
            high->setChannelFillGraph(low);
        }

        // Levels 1, 2 and 3 solid, dashed and dotted.
        std::map<std::string, std::pair<QVector<double>, QVector<double>>> levels;
        for (const Json& m : metrics) {
            const double step = number(m, "step");
            const auto it = m.find("levels");
            if (!std::isfinite(step) || it == m.end() || !it->is_object())
                continue;
            for (const auto& [level, counts] : it->items()) {
                const double asked = number(counts, "rollouts");
                const double right = number(counts, "correct");
                if (asked > 0 && std::isfinite(right)) {
                    levels[level].first << step;
                    levels[level].second << right / asked;
                }
            }
        }
        if (levels.empty()) {
            simple(PassRate, [](const Json& m) { return number(m, "correct_share"); });
        } else {
            const Qt::PenStyle styles[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine,
                                           Qt::DashDotLine};
            int index = 0;
            for (const auto& [level, points] : levels)
                addSeries(m_plots[PassRate], color, styles[std::min(index++, 3)], points.first,
                          points.second);
        }
        simple(DroppedGroups,
               [](const Json& m) { return number(m, "groups") - number(m, "groups_kept"); });
        // The update's figures exist only for steps that updated: a step whose groups were all
        // dropped has no point there rather than a zero.
        const auto updated = [](const char* field) {
            return [field](const Json& m) {
                return number(m, "rollouts_kept") > 0 ? number(m, field) : kNone;
            };
        };
        simple(PolicyLoss, updated("loss_policy"));
        simple(Kl, updated("kl"));
        simple(ClipFraction, updated("clip_fraction"));
        simple(Entropy, updated("entropy"));
        simple(AnswerLength, [](const Json& m) {
            const double mean = number(m, "answer_tokens");
            return std::isfinite(mean) ? mean : number(m, "sampled_tokens") / number(m, "rollouts");
        });
        const std::pair<const char*, Qt::PenStyle> parts[] = {{"sample_seconds", Qt::SolidLine},
                                                              {"judge_seconds", Qt::DashLine},
                                                              {"update_seconds", Qt::DotLine}};
        for (const auto& [name, style] : parts) {
            const std::string field = name;
            series(
                metrics, [&field](const Json& m) { return number(m, field.c_str()); }, keys,
                values);
            addSeries(m_plots[StepTime], color, style, keys, values);
        }
        series(
            run->run().evaluations(), [](const Json& e) { return number(e, "exec"); }, keys,
            values);
        addSeries(m_plots[HeldOut], color, Qt::SolidLine, keys, values)
            ->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));

        // A phase starts, or a level of tasks is asked for the first time.
        std::string phase;
        std::set<std::string> seen;
        for (const Json& m : metrics) {
            const double step = number(m, "step");
            if (!std::isfinite(step))
                continue;
            const std::string now = runjson::text(m, "phase").toStdString();
            if (!phase.empty() && now != phase) {
                for (QCustomPlot* plot : m_plots)
                    mark(plot, step - 0.5, color, Qt::DashLine);
                if (first)
                    m_phaseMarks << step - 0.5;
            }
            phase = now;
            const auto it = m.find("levels");
            if (it != m.end() && it->is_object())
                for (const auto& [level, counts] : it->items())
                    if (seen.insert(level).second && seen.size() > 1)
                        for (QCustomPlot* plot : m_plots)
                            mark(plot, step - 0.5, Qt::gray, Qt::DotLine);
        }
        first = false;
    }
    m_key->setText(key.join(QStringLiteral("&nbsp;&nbsp; ")) +
                   QStringLiteral("&nbsp;&nbsp;&nbsp; ") +
                   tr("<i>Levels 1, 2, 3 and sampling, judging, updating: solid, dashed, dotted. "
                      "Dashed vertical line: a phase begins; dotted: a new level is asked.</i>"));
    // Every plot spans the same steps, so that a step lines up from plot to plot; shares keep
    // their whole scale.
    double lowest = std::numeric_limits<double>::infinity();
    double highest = -std::numeric_limits<double>::infinity();
    for (QCustomPlot* plot : m_plots)
        for (int g = 0; g < plot->graphCount(); ++g) {
            bool found = false;
            const QCPRange span = plot->graph(g)->getKeyRange(found);
            if (found) {
                lowest = std::min(lowest, span.lower);
                highest = std::max(highest, span.upper);
            }
        }
    for (int c = 0; c < CurveCount; ++c) {
        QCustomPlot* plot = m_plots[c];
        plot->rescaleAxes();
        if (std::isfinite(lowest))
            plot->xAxis->setRange(lowest - 0.3, std::max(highest, lowest + 1.0) + 0.3);
        if (c == PassRate || c == ClipFraction || c == HeldOut) {
            plot->yAxis->setRange(-0.03, 1.03);
        } else {
            // Flat curves and single points still get a readable range.
            const QCPRange range = plot->yAxis->range();
            if (range.size() < 1e-9 * std::max(1.0, std::abs(range.center())))
                plot->yAxis->setRange(range.center() - 0.5, range.center() + 0.5);
            else
                plot->yAxis->scaleRange(1.1, range.center());
        }
        if (!m_dirty.contains(plot))
            m_dirty << plot;
    }
    m_replot->start();
}

void RunCurves::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void RunCurves::retranslate() {
    const QString titles[CurveCount] = {tr("Reward (mean, ± 1 sd)"),
                                        tr("Pass rate by level"),
                                        tr("Groups dropped"),
                                        tr("Policy loss"),
                                        tr("KL"),
                                        tr("Clip fraction"),
                                        tr("Entropy (nats)"),
                                        tr("Answer tokens"),
                                        tr("Seconds per step"),
                                        tr("Held-out correct")};
    const QString tips[CurveCount] = {
        tr("Mean reward of the step's rollouts, with a band of one standard deviation."),
        tr("Share of correct rollouts for each task level: level 1 solid, 2 dashed, 3 dotted."),
        tr("Groups whose rollouts all earned the same reward: they have no advantage to learn "
           "from."),
        tr("TraceRL's clipped surrogate, averaged over the micro-batches."),
        tr("k3 estimate of the KL divergence from the policy that sampled the rollouts."),
        tr("Share of targets whose probability ratio was clipped."),
        tr("Mean entropy of the sampling policy at the tokens the update trains on."),
        tr("Mean answer length of the step's rollouts."),
        tr("Seconds of the step: sampling solid, judging dashed, updating dotted."),
        tr("Share of the held-out tasks answered correctly, greedily.")};
    for (int c = 0; c < CurveCount; ++c) {
        if (auto* title = qobject_cast<QCPTextElement*>(m_plots[c]->plotLayout()->element(0, 0)))
            title->setText(titles[c]);
        m_plots[c]->setToolTip(tips[c]);
        m_plots[c]->xAxis->setLabel(tr("step"));
        if (!m_dirty.contains(m_plots[c]))
            m_dirty << m_plots[c];
    }
    m_replot->start();
}

} // namespace dice
