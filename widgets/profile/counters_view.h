// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/cuda/ncu_report.h"

#include <QString>
#include <QWidget>

#include <memory>
#include <optional>

class QCustomPlot;
class QLabel;
class QProcess;
class QPushButton;
class QTableWidget;
class QTemporaryFile;

namespace dice {

// Nsight Compute's counters of the editor's candidate, as its users look for them: per kernel of
// the candidate and of the reference, the duration, compute and memory throughput as shares of
// peak, achieved occupancy, DRAM traffic and the limiting unit, each kernel's point on the GPU's
// roofline, and a kept profile (the baseline) beside them. The profile is taken by `dice eval
// --profile` in a process this view owns (docs/counters.md); without ncu or a GPU the view says
// what is missing and how to get it.
class CountersView : public QWidget {
    Q_OBJECT
public:
    explicit CountersView(QWidget* parent = nullptr);
    ~CountersView() override;

    // The roofline's ceilings: the GPU's peak DRAM bandwidth and FP32 rate (0 where unknown).
    void setCeilings(double bytesPerSecond, double flopsPerSecond);
    // Whether a profile can be taken here: a GPU, and ncu (its path, empty where none was found).
    void setAvailability(bool gpu, const QString& ncu);
    // Whether Collect may start: a task and a candidate in the native dialect are chosen.
    void setReady(bool ready, const QString& why);

    // Profiles `source` against the task (a built-in task's name or a task file) with the dice
    // program beside this one.
    void collect(const QString& task, const QString& source, const QString& preset,
                 const QString& compilerOptions);
    // The `dice` program that takes the profile (cliProgram() by default).
    void setProgram(const QString& program) { m_program = program; }
    // Shows a report: the table and the roofline, or the report's error.
    void showReport(const CounterReport& report);
    // Keeps the report shown as the baseline, shown beside the next ones.
    void keepAsBaseline();

    bool busy() const;
    const std::optional<CounterReport>& report() const { return m_report; }
    const std::optional<CounterReport>& baseline() const { return m_baseline; }
    QTableWidget* table() const { return m_table; }
    QCustomPlot* roofline() const { return m_roofline; }
    QLabel* statusLabel() const { return m_status; }
    QPushButton* collectButton() const { return m_collect; }
    QPushButton* keepButton() const { return m_keep; }

signals:
    // The user asked for a profile: the owner calls collect() with the task and the candidate.
    void collectRequested();
    void collected(bool ok);

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslate();
    void refresh();
    void updateButtons();
    void finishedProcess();

    QLabel* m_status;
    QPushButton* m_collect;
    QPushButton* m_keep;
    QTableWidget* m_table;
    QCustomPlot* m_roofline;
    QString m_program;
    QProcess* m_process = nullptr;
    std::unique_ptr<QTemporaryFile> m_candidateFile;
    std::optional<CounterReport> m_report;
    std::optional<CounterReport> m_baseline;
    double m_bandwidth = 0;
    double m_flops = 0;
    bool m_gpu = false;
    QString m_ncu;
    bool m_ready = false;
    QString m_notReady;
};

} // namespace dice
