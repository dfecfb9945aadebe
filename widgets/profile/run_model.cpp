// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/profile/run_model.h"

#include "widgets/state/evaluation_message_text.h"

#include <QFont>

#include <algorithm>

namespace dice {

bool RunModel::Row::operator==(const Row& other) const {
    return id == other.id && createdAt == other.createdAt && task == other.task &&
           verdict == other.verdict && speedup == other.speedup && medianMs == other.medianMs &&
           message == other.message && device == other.device && driver == other.driver &&
           baseline == other.baseline;
}

RunModel::Row RunModel::rowOf(const RunRecord& run) {
    Row row;
    row.id = run.id;
    row.createdAt = QString::fromStdString(run.createdAt);
    row.task = QString::fromStdString(run.task);
    row.verdict = QString::fromStdString(run.verdict);
    row.speedup = run.speedup;
    row.device = QString::fromStdString(run.device);
    row.driver = QString::fromStdString(run.driver);
    row.baseline = run.baseline;
    try {
        const EvaluationResult result = evaluationFromJson(run.result);
        if (result.candidateTime)
            row.medianMs = result.candidateTime->medianMs;
        row.message = evaluationMessageText(result.message);
    } catch (const std::exception&) {
        // A record whose result cannot be read still shows what the store's columns hold.
    }
    return row;
}

RunModel::RunModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void RunModel::setRuns(const std::vector<RunRecord>& runs) {
    std::vector<Row> rows;
    rows.reserve(runs.size());
    for (const auto& run : runs)
        rows.push_back(rowOf(run));
    if (rows == m_rows)
        return;
    const std::size_t shown = m_rows.size();
    if (shown > 0 && rows.size() > shown) {
        const std::size_t added = rows.size() - shown;
        if (std::equal(m_rows.begin(), m_rows.end(), rows.begin())) {
            beginInsertRows({}, static_cast<int>(shown), static_cast<int>(rows.size()) - 1);
            m_rows.insert(m_rows.end(), rows.begin() + static_cast<std::ptrdiff_t>(shown),
                          rows.end());
            endInsertRows();
            return;
        }
        if (std::equal(m_rows.begin(), m_rows.end(),
                       rows.begin() + static_cast<std::ptrdiff_t>(added))) {
            beginInsertRows({}, 0, static_cast<int>(added) - 1);
            m_rows.insert(m_rows.begin(), rows.begin(),
                          rows.begin() + static_cast<std::ptrdiff_t>(added));
            endInsertRows();
            return;
        }
    }
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

void RunModel::clear() {
    setRuns({});
}

void RunModel::retranslate() {
    Q_EMIT headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
    if (!m_rows.empty())
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

int RunModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int RunModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& row = m_rows[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case IdColumn:
            return row.baseline ? tr("%1 (baseline)").arg(row.id) : QString::number(row.id);
        case WhenColumn:
            return row.createdAt;
        case TaskColumn:
            return row.task;
        case VerdictColumn:
            return row.verdict;
        case SpeedupColumn:
            return row.speedup > 0 ? QStringLiteral("%1×").arg(row.speedup, 0, 'f', 2) : QString();
        case MedianColumn:
            return row.medianMs ? QString::number(*row.medianMs, 'f', 4) : QString();
        case DeviceColumn:
            return row.device;
        }
        return {};
    case Qt::ToolTipRole:
        switch (index.column()) {
        case IdColumn:
            return row.baseline ? tr("The pinned baseline of %1").arg(row.task) : QString();
        case VerdictColumn:
            return row.message;
        case DeviceColumn:
            return row.driver.isEmpty() ? QString() : tr("Driver %1").arg(row.driver);
        }
        return {};
    case Qt::FontRole:
        if (index.column() == IdColumn && row.baseline) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return {};
    case SortRole:
        // Numbers sort as numbers; the text columns sort as they read.
        switch (index.column()) {
        case IdColumn:
            return static_cast<qlonglong>(row.id);
        case SpeedupColumn:
            return row.speedup;
        case MedianColumn:
            return row.medianMs ? QVariant(*row.medianMs) : QVariant();
        }
        return data(index, Qt::DisplayRole);
    case RunIdRole:
        return static_cast<qlonglong>(row.id);
    default:
        return {};
    }
}

QVariant RunModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case IdColumn:
        return tr("Run");
    case WhenColumn:
        return tr("When (UTC)");
    case TaskColumn:
        return tr("Task");
    case VerdictColumn:
        return tr("Verdict");
    case SpeedupColumn:
        return tr("Speedup");
    case MedianColumn:
        return tr("Median (ms)");
    case DeviceColumn:
        return tr("Device");
    }
    return {};
}

} // namespace dice
