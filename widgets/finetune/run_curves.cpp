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
    if (!line.is_object())
        return kNone;
    const auto it = line.find(key);
    return it != line.end() && it->is_number() ? it->get<double>() : kNone;
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
        simple(PolicyLoss, [](const Json& m) { return number(m, "loss_policy"); });
        simple(Kl, [](const Json& m) { return number(m, "kl"); });
        simple(ClipFraction, [](const Json& m) { return number(m, "clip_fraction"); });
        simple(Entropy, [](const Json& m) { return number(m, "entropy"); });
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
    m_key->setText(key.join(QStringLiteral("&nbsp;&nbsp; ")));
    for (QCustomPlot* plot : m_plots) {
        plot->rescaleAxes();
        // Flat curves and single points still get a readable range.
        for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) {
            QCPRange range = axis->range();
            if (range.size() < 1e-9)
                axis->setRange(range.center() - 0.5, range.center() + 0.5);
            else
                axis->scaleRange(1.1, range.center());
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
    const QString titles[CurveCount] = {tr("Reward: mean and spread"),
                                        tr("Pass rate by level (1 —, 2 – –, 3 ···)"),
                                        tr("Groups dropped (equal rewards)"),
                                        tr("Policy loss"),
                                        tr("KL to the sampling policy"),
                                        tr("Clip fraction"),
                                        tr("Entropy at the targets (nats)"),
                                        tr("Answer length (tokens)"),
                                        tr("Seconds: sampling —, judging – –, updating ···"),
                                        tr("Held-out: share correct")};
    for (int c = 0; c < CurveCount; ++c) {
        if (auto* title = qobject_cast<QCPTextElement*>(m_plots[c]->plotLayout()->element(0, 0)))
            title->setText(titles[c]);
        m_plots[c]->xAxis->setLabel(tr("step"));
        if (!m_dirty.contains(m_plots[c]))
            m_dirty << m_plots[c];
    }
    m_replot->start();
}

} // namespace dice
