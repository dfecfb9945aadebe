// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/profile/counters_view.h"

#include "core/common/error.h"
#include "core/cuda/nsight_compute.h"
#include "widgets/plots/plot_legend.h"
#include "widgets/state/cli_program.h"

#include <nlohmann/json.hpp>
#include <qcustomplot.h>

#include <QDir>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QTemporaryFile>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace dice {

namespace {

enum Column {
    SideColumn,
    KernelColumn,
    DurationColumn,
    ComputeColumn,
    MemoryColumn,
    OccupancyColumn,
    DramColumn,
    IntensityColumn,
    RateColumn,
    LimiterColumn,
    ColumnCount
};

QString figure(const std::optional<double>& v, int digits) {
    return v ? QString::number(*v, 'f', digits) : QStringLiteral("—");
}

std::optional<double> times(const std::optional<double>& v, double by) {
    return v ? std::optional<double>(*v * by) : std::nullopt;
}

} // namespace

CountersView::CountersView(QWidget* parent)
    : QWidget(parent)
    , m_status(new QLabel(this))
    , m_collect(new QPushButton(this))
    , m_keep(new QPushButton(this))
    , m_table(new QTableWidget(0, ColumnCount, this))
    , m_roofline(new QCustomPlot(this))
    , m_program(cliProgram()) {
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);

    m_roofline->xAxis->setScaleType(QCPAxis::stLogarithmic);
    m_roofline->yAxis->setScaleType(QCPAxis::stLogarithmic);
    for (QCPAxis* axis : {m_roofline->xAxis, m_roofline->yAxis}) {
        axis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
        axis->setNumberFormat(QStringLiteral("eb"));
        axis->setNumberPrecision(0);
    }
    m_roofline->xAxis->setRange(1e-2, 1e3);
    m_roofline->yAxis->setRange(1e9, 1e14);
    m_roofline->addGraph(); // the ceilings
    m_roofline->graph(0)->setPen(QPen(QColor(90, 90, 90), 2));
    const struct {
        QCPScatterStyle::ScatterShape shape;
        QColor colour;
    } sides[] = {{QCPScatterStyle::ssDisc, QColor(0, 114, 178)},
                 {QCPScatterStyle::ssSquare, QColor(213, 94, 0)},
                 {QCPScatterStyle::ssTriangle, QColor(0, 158, 115)}};
    for (const auto& side : sides) {
        QCPGraph* g = m_roofline->addGraph();
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(QCPScatterStyle(side.shape, side.colour, side.colour, 9));
        g->setPen(QPen(side.colour));
    }
    placeLegendAbove(m_roofline);
    // Two entries to a row, so that a narrow panel keeps room for the axes.
    m_roofline->legend->setWrap(2);
    m_roofline->legend->setFillOrder(QCPLegend::foColumnsFirst, true);
    // Its own hint (axes and legend side by side) would set the Profile panel's least width.
    m_roofline->setMinimumSize(200, 220);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_collect);
    buttons->addWidget(m_keep);
    buttons->addStretch(1);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_table);
    splitter->addWidget(m_roofline);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(m_status);
    layout->addWidget(splitter, 1);

    connect(m_collect, &QPushButton::clicked, this, &CountersView::collectRequested);
    connect(m_keep, &QPushButton::clicked, this, &CountersView::keepAsBaseline);
    retranslate();
    refresh();
}

CountersView::~CountersView() {
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->kill();
        m_process->waitForFinished(5000);
    }
}

void CountersView::setCeilings(double bytesPerSecond, double flopsPerSecond) {
    m_bandwidth = bytesPerSecond;
    m_flops = flopsPerSecond;
    refresh();
}

void CountersView::setAvailability(bool gpu, const QString& ncu) {
    m_gpu = gpu;
    m_ncu = ncu;
    refresh();
}

void CountersView::setReady(bool ready, const QString& why) {
    m_ready = ready;
    m_notReady = why;
    updateButtons();
}

bool CountersView::busy() const {
    return m_process && m_process->state() != QProcess::NotRunning;
}

void CountersView::updateButtons() {
    const bool can = m_gpu && !m_ncu.isEmpty() && m_ready && !busy();
    m_collect->setEnabled(can);
    m_collect->setToolTip(!m_gpu ? tr("Counters are read from a GPU; this machine has none")
                          : m_ncu.isEmpty() ? tr("Nsight Compute (ncu) was not found")
                          : !m_ready        ? m_notReady
                          : busy()          ? tr("A profile is being taken")
                                            : tr("Profile the candidate and the reference with %1: "
                                                          "every launch of one correctness trial")
                                         .arg(m_ncu));
    m_keep->setEnabled(m_report && m_report->ok() && !busy());
}

void CountersView::collect(const QString& task, const QString& source, const QString& preset,
                           const QString& compilerOptions) {
    if (busy() || !m_gpu || m_ncu.isEmpty())
        return;
    m_candidateFile = std::make_unique<QTemporaryFile>(
        QDir::tempPath() + QStringLiteral("/dice-counters-XXXXXX.dice"));
    if (!m_candidateFile->open()) {
        m_status->setText(tr("The candidate could not be written for the profiler: %1")
                              .arg(m_candidateFile->errorString()));
        return;
    }
    m_candidateFile->write(source.toUtf8());
    m_candidateFile->flush();
    QStringList arguments = {QStringLiteral("eval"),      task,
                             m_candidateFile->fileName(), QStringLiteral("--profile"),
                             QStringLiteral("--json"),    QStringLiteral("--no-store"),
                             QStringLiteral("--preset"),  preset};
    if (!compilerOptions.trimmed().isEmpty())
        arguments << QStringLiteral("--compiler-options") << compilerOptions;
    if (!m_process) {
        m_process = new QProcess(this);
        connect(m_process, &QProcess::finished, this, &CountersView::finishedProcess);
        connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
            if (error == QProcess::FailedToStart)
                finishedProcess();
        });
    }
    m_process->setProgram(m_program);
    m_process->setArguments(arguments);
    m_status->setText(tr("Profiling with %1: each kernel is replayed to read its counters, which "
                         "takes seconds…")
                          .arg(m_ncu));
    m_process->start();
    updateButtons();
}

void CountersView::finishedProcess() {
    const QByteArray out = m_process->readAllStandardOutput();
    const QString err = QString::fromUtf8(m_process->readAllStandardError()).trimmed();
    m_candidateFile.reset();
    CounterReport report;
    try {
        const auto j = nlohmann::json::parse(out.toStdString());
        if (!j.is_object() || !j.contains("counters"))
            throw Error("dice eval printed no counters");
        report = counterReportFromJson(j["counters"]);
    } catch (const std::exception& e) {
        const QString why = m_process->error() == QProcess::FailedToStart
                                ? m_process->errorString()
                                : QString::fromStdString(e.what());
        report.error =
            tr("The profile failed: %1%2")
                .arg(why, err.isEmpty() ? QString() : QStringLiteral("\n") + err.right(800))
                .toStdString();
    }
    showReport(report);
    emit collected(report.ok());
}

void CountersView::showReport(const CounterReport& report) {
    m_report = report;
    refresh();
}

void CountersView::keepAsBaseline() {
    if (!m_report || !m_report->ok())
        return;
    m_baseline = m_report;
    refresh();
}

void CountersView::refresh() {
    m_table->setRowCount(0);
    for (int g = 1; g <= 3; ++g)
        m_roofline->graph(g)->data()->clear();
    int unplotted = 0;
    const auto addSide = [&](const std::vector<KernelCounters>& kernels, const QString& side,
                             int graph) {
        for (const auto& k : kernels) {
            const int row = m_table->rowCount();
            m_table->insertRow(row);
            const QStringList cells = {side,
                                       QString::fromStdString(k.kernel),
                                       figure(times(k.durationNs, 1e-3), 2),
                                       figure(k.computeThroughputPct, 1),
                                       figure(k.memoryThroughputPct, 1),
                                       figure(k.achievedOccupancyPct, 1),
                                       figure(times(k.dramBytes(), 1e-6), 2),
                                       figure(k.arithmeticIntensity(), 3),
                                       figure(times(k.flopsPerSecond(), 1e-9), 1),
                                       k.limiter() == "memory"    ? tr("memory")
                                       : k.limiter() == "compute" ? tr("compute")
                                       : k.limiter() == "latency" ? tr("latency")
                                                                  : QStringLiteral("—")};
            for (int c = 0; c < ColumnCount; ++c)
                m_table->setItem(row, c, new QTableWidgetItem(cells[c]));
            m_table->item(row, 1)->setToolTip(
                (k.signature.empty() ? QString() : QString::fromStdString(k.signature) + "\n") +
                tr("%n launch(es) profiled; the figures are those of the longest", nullptr,
                   k.launches));
            const auto x = k.arithmeticIntensity();
            const auto y = k.flopsPerSecond();
            if (x && y && *x > 0 && *y > 0)
                m_roofline->graph(graph)->addData(*x, *y);
            else
                ++unplotted;
        }
    };
    const bool shown = m_report && m_report->ok();
    if (shown) {
        addSide(m_report->candidate, tr("Candidate"), 1);
        addSide(m_report->reference, tr("Reference"), 2);
    }
    if (m_baseline)
        addSide(m_baseline->candidate, tr("Baseline"), 3);

    // The axes hold every point and the ridge where the bandwidth meets the FP32 peak, with
    // room around them.
    double left = 1e-2, right = 1e3, bottom = 1e9, top = 1e14;
    bool any = false;
    for (int g = 1; g <= 3; ++g)
        for (auto it = m_roofline->graph(g)->data()->constBegin();
             it != m_roofline->graph(g)->data()->constEnd(); ++it) {
            left = any ? std::min(left, it->key) : it->key;
            right = any ? std::max(right, it->key) : it->key;
            bottom = any ? std::min(bottom, it->value) : it->value;
            top = any ? std::max(top, it->value) : it->value;
            any = true;
        }
    m_roofline->graph(0)->data()->clear();
    if (m_bandwidth > 0 && m_flops > 0) {
        const double ridge = m_flops / m_bandwidth;
        left = std::min(left, ridge / 10);
        right = std::max(right, ridge * 10);
        top = std::max(top, m_flops);
        bottom = std::min(bottom, m_bandwidth * left);
        for (double x = left / 4; x <= right * 4; x *= 1.25)
            m_roofline->graph(0)->addData(x, std::min(m_bandwidth * x, m_flops));
    }
    // At least two decades on each axis, so that the ticks read as powers of ten.
    const auto widen = [](double& low, double& high) {
        const double mid = std::sqrt(low * high);
        low = std::min(low / 3, mid / 10);
        high = std::max(high * 3, mid * 10);
    };
    widen(left, right);
    widen(bottom, top);
    m_roofline->xAxis->setRange(left, right);
    m_roofline->yAxis->setRange(bottom, top);

    // A profile shown stays readable whatever this machine can do; what it lacks matters only
    // for taking the next one.
    if (m_report && !m_report->ok())
        m_status->setText(QString::fromStdString(m_report->error));
    else if (!shown && !m_gpu)
        m_status->setText(tr("Hardware counters are read on a GPU; this machine has none."));
    else if (!shown && m_ncu.isEmpty())
        m_status->setText(QString::fromStdString(ncuMissingAdvice()));
    else if (shown)
        m_status->setText(
            tr("%1: %2 kernels of the candidate, %3 of the reference, each at its longest "
               "launch.%4")
                .arg(QString::fromStdString(m_report->version.empty() ? m_report->tool
                                                                      : m_report->version))
                .arg(m_report->candidate.size())
                .arg(m_report->reference.size())
                .arg(unplotted > 0
                         ? QStringLiteral(" ") +
                               tr("%n kernel(s) without floating-point work are not on the "
                                  "roofline.",
                                  nullptr, unplotted)
                         : QString()));
    else
        m_status->setText(tr("Collect reads the counters of the editor's candidate and of the "
                             "reference with %1.")
                              .arg(m_ncu));
    m_roofline->replot();
    updateButtons();
}

void CountersView::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) {
        retranslate();
        refresh();
    }
    QWidget::changeEvent(event);
}

void CountersView::retranslate() {
    m_collect->setText(tr("Collect counters"));
    m_keep->setText(tr("Keep as baseline"));
    m_keep->setToolTip(tr("Show these counters beside the next profile's"));
    m_table->setHorizontalHeaderLabels({tr("Side"), tr("Kernel"), tr("Duration (µs)"),
                                        tr("Compute (% of peak)"), tr("Memory (% of peak)"),
                                        tr("Achieved occupancy (%)"), tr("DRAM (MB)"),
                                        tr("FLOP per byte"), tr("GFLOP/s"), tr("Limited by")});
    m_roofline->xAxis->setLabel(tr("Arithmetic intensity (FLOP per DRAM byte)"));
    m_roofline->yAxis->setLabel(tr("FLOP per second"));
    m_roofline->graph(0)->setName(tr("Roofline (peak bandwidth, FP32)"));
    m_roofline->graph(1)->setName(tr("Candidate"));
    m_roofline->graph(2)->setName(tr("Reference"));
    m_roofline->graph(3)->setName(tr("Baseline"));
}

} // namespace dice
