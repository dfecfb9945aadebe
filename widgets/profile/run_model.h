// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/store/run_store.h"

#include <QAbstractTableModel>

#include <optional>
#include <vector>

namespace dice {

// Runs of the run store, one row each in the order given. Columns: run (marked when it is its
// task's pinned baseline), when, task, verdict, speedup, median time, device.
class RunModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        IdColumn,
        WhenColumn,
        TaskColumn,
        VerdictColumn,
        SpeedupColumn,
        MedianColumn,
        DeviceColumn,
        ColumnCount
    };
    enum Role {
        // Numbers as numbers, for a sorting proxy; a run that was not timed has no median.
        SortRole = Qt::UserRole + 1,
        // The run's id in the store (qlonglong), in every column.
        RunIdRole
    };

    explicit RunModel(QObject* parent = nullptr);

    // Runs that only add to the ones shown, before or after them (a new evaluation in the
    // history), are inserted and keep the view's selection; any other change resets the model.
    void setRuns(const std::vector<RunRecord>& runs);
    void clear();
    // Headers and labels in the language now installed.
    void retranslate();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    // What the table shows of a run, read once from its record.
    struct Row {
        qint64 id = 0;
        QString createdAt;
        QString task;
        QString verdict;
        double speedup = 0;
        std::optional<double> medianMs;
        QString message;
        QString device;
        QString driver;
        bool baseline = false;
        bool operator==(const Row& other) const;
    };
    static Row rowOf(const RunRecord& run);

    std::vector<Row> m_rows;
};

} // namespace dice
